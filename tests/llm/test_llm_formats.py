"""Answer formats, invalid-answer policies, context limits and env arguments, end to end over
HTTP against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("openai")

from hiddengrid.cli import main
from hiddengrid.llm.answer import legal_actions
from hiddengrid.llm.run import CONFIG, EPISODES, RunConfig, play_run
from hiddengrid.llm.testserver import ScriptedServer
from hiddengrid.registry import ENV_IDS
from hiddengrid.text.env import make_text
from hiddengrid.text.parse import TextActionError, parse_choice

AM = "hiddengrid/AnomalyMapping-v0"
IT = "hiddengrid/InvertedTreasure-v0"
NAMES = ["move north", "move south", "move east", "move west", "rotate left", "rotate right"]


def _records(folder: Path) -> list[dict]:
    lines = [json.loads(x) for x in (folder / EPISODES).read_text().splitlines()]
    return sorted(lines, key=lambda r: (r["env"], r["trial"], r["index"]))


@pytest.mark.parametrize(
    "answer",
    [
        "0 move north", "0. move north", "0: move north", "0) move north", "move north (0)",
        "Action: **move north**", "**Action: move north**", "**Action:** move north",
        "[Action: move north].", "`0 move north`", "north (0)",
    ],
)  # fmt: skip
def test_the_prompts_own_listing_forms_and_wrappers_in_any_order(answer):
    assert parse_choice(answer, NAMES) == 0


@pytest.mark.parametrize("answer", ["1 move north", "move north (2)", "0 move north 1"])
def test_a_number_and_a_name_that_disagree_are_invalid(answer):
    with pytest.raises(TextActionError):
        parse_choice(answer, NAMES)


@pytest.mark.parametrize(
    "answer", ["I move north now", "go move north", "move north and rotate left", "xyz", ""]
)
def test_the_invalid_answer_hint_never_names_an_action_the_model_did_not_write(answer):
    try:
        parse_choice(answer, NAMES)
    except TextActionError as exc:
        reason = str(exc)
    hint = reason.split("valid actions:")[0]  # the full list is a list, not a suggestion
    for name in NAMES:
        assert name not in hint.replace(answer.lower(), "")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_constrained_format_asks_for_the_legal_actions_and_every_answer_is_valid(env_id, tmp_path):
    with ScriptedServer(["a", "b", "c"]) as server:
        config = RunConfig(
            envs=(env_id,), model="m", base_url=server.url, episodes=1, answer_format="constrained"
        )
        _, summary = play_run(config, tmp_path)
        first = server.requests[0]["body"]
    schema = first["response_format"]["json_schema"]["schema"]
    tenv = make_text(env_id)
    tenv.reset(seed=0)
    assert schema["properties"]["action"]["enum"] == legal_actions(tenv)
    assert summary["envs"][env_id]["invalid_answers"] == 0
    assert summary["envs"][env_id]["answers"] >= 1


def test_max_invalid_sets_when_invalid_answers_end_an_episode(tmp_path):
    with ScriptedServer(["nonsense"]) as server:
        for n in (1, 5):
            config = RunConfig(
                envs=(AM,), model="m", base_url=server.url, episodes=1, max_invalid=n
            )
            play_run(config, tmp_path / str(n))
            (record,) = _records(tmp_path / str(n))
            assert record["answers"] == record["invalid"] == n
            assert record["outcome"] == "invalid_actions"


def test_a_fallback_is_played_in_place_of_an_invalid_answer_and_counted(tmp_path):
    with ScriptedServer(["nonsense"]) as server:
        config = RunConfig(
            envs=(AM,), model="m", base_url=server.url, episodes=1, fallback="rotate left"
        )
        _, summary = play_run(config, tmp_path)
    (record,) = _records(tmp_path)
    # Every answer invalid, yet the episode is played to its end by the fallback.
    assert record["outcome"] != "invalid_actions" and record["steps"] == record["answers"] > 3
    assert record["invalid"] == record["answers"] == record["fallbacks"]
    assert all(t["action"] == "rotate left" and t["invalid"] for t in record["turns"])
    assert summary["envs"][AM]["invalid_rate"] == 1.0 and summary["envs"][AM]["fallbacks"] > 3
    assert main(["report", str(tmp_path), "--pictures", "1"]) == 0  # its replay draws


def test_a_fallback_that_is_no_action_is_refused_before_the_run(tmp_path, capsys):
    code = main(
        [
            *("eval", "--env", AM, "--agent", "llm", "--base-url", "http://127.0.0.1:9/v1"),
            *("--model", "m", "--fallback", "fly", "--out", str(tmp_path / "r")),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "fallback 'fly'" in err[0]
    assert not (tmp_path / "r").exists()


def test_a_context_overflow_ends_the_episode_and_the_run_goes_on_and_resumes(tmp_path):
    with ScriptedServer(["move north", "rotate left"], context_words=1200) as server:
        config = RunConfig(envs=(AM,), model="m", base_url=server.url, episodes=3, history=50)
        _, summary = play_run(config, tmp_path)
        served = server.served
        play_run(config, tmp_path)  # resume: everything is finished
        assert server.served == served
    records = _records(tmp_path)
    assert len(records) == 3 and {r["outcome"] for r in records} == {"context_overflow"}
    assert summary["envs"][AM]["outcomes"] == {"context_overflow": 3}


def test_context_tokens_trim_the_history_so_the_prompt_fits(tmp_path):
    with ScriptedServer(["move north", "rotate left"], context_words=1200) as server:
        config = RunConfig(
            envs=(AM,), model="m", base_url=server.url, episodes=2, history=50,
            context_tokens=1600,
        )  # fmt: skip
        play_run(config, tmp_path)
    records = _records(tmp_path)
    assert "context_overflow" not in {r["outcome"] for r in records}
    assert max(r["steps"] for r in records) > 10


def test_env_arguments_reach_the_llm_agent_and_make_the_run_identity(tmp_path, capsys):
    with ScriptedServer(["reveal"]) as server:
        args = ["eval", "--env", IT, "--agent", "llm", "--base-url", server.url, "--model", "m"]
        args += ["--episodes", "1", "--env-arg", "scout=true", "--out", str(tmp_path / "s")]
        assert main(args) == 0
    stored = json.loads((tmp_path / "s" / CONFIG).read_text())
    assert stored["env_kwargs"] == {IT: {"scout": True}}
    (record,) = _records(tmp_path / "s")
    assert record["system"].startswith(make_text(IT, scout=True).rules)
    assert make_text(IT, scout=True).rules != make_text(IT).rules
    plain = RunConfig(envs=(IT,), model="m", base_url="http://h/v1")
    scout = RunConfig(
        envs=(IT,), model="m", base_url="http://h/v1", env_kwargs={IT: {"scout": True}}
    )
    assert plain.default_dir() != scout.default_dir()


def test_a_server_that_ignores_structured_output_is_one_clear_line(tmp_path, capsys):
    # The scripted server honours response_format; answering raw text is what one that drops
    # the field does (transformers serve, measured).
    with ScriptedServer(["mark"], raw_body=b'{"choices":[{"message":{"content":"I mark"}}]}') as s:
        code = main(
            [
                *("eval", "--env", AM, "--agent", "llm", "--base-url", s.url, "--model", "m"),
                *("--episodes", "1", "--answer-format", "constrained"),
                *("--out", str(tmp_path / "r")),
            ]
        )
    err = [x for x in capsys.readouterr().err.splitlines() if "error:" in x]  # not the bar
    assert code == 2 and len(err) == 1 and "ignored the structured-output request" in err[0]


def test_a_constrained_answer_cut_at_max_tokens_is_an_invalid_answer(tmp_path):
    body = b'{"choices":[{"message":{"content":"{\\"action\\": \\"mo"},"finish_reason":"length"}]}'
    with ScriptedServer(["mark"], raw_body=body) as server:
        config = RunConfig(
            envs=(AM,), model="m", base_url=server.url, episodes=1, answer_format="constrained"
        )
        _, summary = play_run(config, tmp_path)
    assert summary["envs"][AM]["invalid_rate"] == 1.0
    assert summary["envs"][AM]["outcomes"] == {"invalid_actions": 1}


@pytest.mark.parametrize(
    "entry, size, where",
    [
        ({"id": "m", "max_model_len": 4096}, 4096, "max_model_len"),  # vLLM, SGLang
        ({"id": "m", "context_length": 8192}, 8192, "context_length"),  # OpenRouter
        ({"id": "m", "max_context_length": 2048.0}, 2048, "max_context_length"),  # LM Studio
        ({"id": "m", "meta": {"n_ctx_train": 8192}}, 8192, "n_ctx_train"),  # llama.cpp
        ({"id": "m"}, None, "no context size"),  # transformers serve
        ({"id": "other", "max_model_len": 4096}, None, "does not list the model"),
        ({"id": "m", "max_model_len": True}, None, "no context size"),
        ({"id": "m", "max_model_len": -5}, None, "no context size"),
        ({"id": "m", "max_model_len": 1e300}, None, "no context size"),
        ({"id": "m", "max_model_len": 100.5}, None, "no context size"),
        ({"id": "m", "max_model_len": "4096"}, None, "no context size"),
    ],
)
def test_the_context_a_models_listing_gives(entry, size, where):
    from hiddengrid.llm.context import from_models_listing

    found, source = from_models_listing({"object": "list", "data": [entry]}, "m")
    assert found == size and where in source
    assert from_models_listing({"data": "x"}, "m")[0] is None
    assert from_models_listing([], "m")[0] is None


def test_the_context_of_a_local_model_folder(tmp_path):
    from hiddengrid.llm.context import from_model_folder, model_context

    (tmp_path / "config.json").write_text('{"max_position_embeddings": 8192}')
    assert from_model_folder(str(tmp_path)) == (
        8192,
        "max_position_embeddings in the model folder's config.json",
    )
    assert from_model_folder(str(tmp_path / "absent"))[0] is None
    (tmp_path / "config.json").write_text("{not json")
    assert from_model_folder(str(tmp_path))[0] is None
    # A server that cannot be asked: no size, a reason, no exception.
    size, why = model_context("http://127.0.0.1:9/v1", "m", timeout=2)
    assert size is None and "could not be read" in why


def _context_cli(url: str, out: Path, *extra: str) -> list[str]:
    return [
        "eval", "--env", AM, "--agent", "llm", "--base-url", url, "--model", "m",
        "--episodes", "2", "--history", "50", "--out", str(out), *extra,
    ]  # fmt: skip


def test_the_servers_context_trims_prompts_and_context_tokens_overrides_it(tmp_path, capsys):
    listing = [{"id": "m", "object": "model", "max_model_len": 1200}]
    answers = ["move north", "rotate left"]
    # The server refuses prompts over 1,200 words and lists 1,200 tokens as the context: the
    # run reads it, trims to fit, and no episode overflows.
    with ScriptedServer(answers, context_words=1200, models=listing) as server:
        assert main(_context_cli(server.url, tmp_path / "read")) == 0
    assert "1200 tokens (the server's /v1/models max_model_len)" in capsys.readouterr().err
    assert json.loads((tmp_path / "read" / CONFIG).read_text())["context_tokens"] == 1200
    assert "context_overflow" not in {r["outcome"] for r in _records(tmp_path / "read")}
    # The same server without the listing: nothing to read, the history grows and overflows.
    with ScriptedServer(answers, context_words=1200) as server:
        assert main(_context_cli(server.url, tmp_path / "unread")) == 0
    assert "not known" in capsys.readouterr().err
    assert json.loads((tmp_path / "unread" / CONFIG).read_text())["context_tokens"] is None
    assert "context_overflow" in {r["outcome"] for r in _records(tmp_path / "unread")}
    # --context-tokens wins over what the server says.
    with ScriptedServer(answers, context_words=1200, models=listing) as server:
        main(_context_cli(server.url, tmp_path / "given", "--context-tokens", "1000"))
    assert json.loads((tmp_path / "given" / CONFIG).read_text())["context_tokens"] == 1000


def test_a_server_context_too_small_for_max_tokens_is_one_line(tmp_path, capsys):
    listing = [{"id": "m", "max_model_len": 300}]
    with ScriptedServer(["move north"], models=listing) as server:
        code = main(_context_cli(server.url, tmp_path / "r"))
        assert server.served == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "context is 300 tokens" in err[0]
    assert not (tmp_path / "r").exists()


def test_a_resume_keeps_the_context_its_run_started_with(tmp_path, capsys):
    # A run started while the server listed no context (none recorded) resumes after it lists
    # one: the run keeps its identity instead of being refused as a different configuration.
    with ScriptedServer(["move north", "rotate left"], models=[]) as server:
        assert main(_context_cli(server.url, tmp_path / "r")) == 0
        assert json.loads((tmp_path / "r" / CONFIG).read_text())["context_tokens"] is None
        served = server.served
        server.models = [{"id": "m", "max_model_len": 5000}]
        assert main(_context_cli(server.url, tmp_path / "r")) == 0
        assert server.served == served  # everything was finished: nothing asked again
    assert "not limited (as the run in" in capsys.readouterr().err
    assert json.loads((tmp_path / "r" / CONFIG).read_text())["context_tokens"] is None
