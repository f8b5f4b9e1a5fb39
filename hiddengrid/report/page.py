"""The HTML page: a run's summary table, learning curves and the step-through viewer.

Both kinds of episode go through the same viewer: LLM episodes from a run folder
(``hiddengrid report RUN_DIR``) and numeric agents' episodes (``hiddengrid record --html``).
A viewer episode is a dict: ``label``, ``meta``, ``system`` (or None), ``frames`` (PNG data
URIs), ``steps`` (each: ``observation``, ``answer``, ``action``, ``invalid``, ``reward``,
``frame``, ``meta``), ``final``, ``final_frame``, ``outcome``, ``return``, ``success``.
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from hiddengrid.report.curve import learning_curve_svg
from hiddengrid.report.frames import ReplayMismatch, replay_frames

_VIEWER = """
<h2>Episodes</h2>
<div class="controls">
  <select id="episode-select" aria-label="episode"></select>
  <button id="prev" type="button">&larr; previous</button>
  <button id="next" type="button">next &rarr;</button>
  <input id="step-slider" type="range" min="0" max="0" value="0" aria-label="step">
  <span id="step-label"></span>
</div>
<div class="meta" id="episode-meta"></div>
<details class="system panel"><summary>System prompt (the rules the model read)</summary>
<pre id="system"></pre></details>
<div class="viewer">
  <div><img id="picture" alt="the env at this step"><div id="no-picture" class="nopicture"></div>
  </div>
  <div>
    <div class="panel"><h3>What the agent saw</h3><pre id="observation"></pre></div>
    <div class="panel" id="thinking-panel"><h3>Its thinking (returned beside the answer)</h3>
      <pre id="thinking"></pre></div>
    <div class="panel"><h3>Its answer</h3><pre id="answer"></pre></div>
    <div class="panel"><h3>Parsed action</h3><pre id="action"></pre>
      <div class="meta" id="turn-meta"></div></div>
  </div>
</div>
"""


def _asset(name: str) -> str:
    return resources.files("hiddengrid.report").joinpath(name).read_text()


def _json_for_script(data: Any) -> str:
    # Inside <script>, "</script" ends the element and "<!--" starts a comment the parser
    # then reads as script data, so no "<" may appear raw; JSON reads \u003c as "<". ">" and
    # "&" alike, and U+2028/2029, which older JavaScript parsers took as line ends.
    text = json.dumps(data, separators=(",", ":"))
    for char, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text


def render_page(
    title: str, meta: str, body: str, episodes: list[dict[str, Any]], viewer: bool = True
) -> str:
    head = (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{_asset('viewer.css')}</style></head><body>"
        f"<h1>{escape(title)}</h1><div class='meta'>{escape(meta)}</div>{body}"
    )
    if not viewer:
        return head + "</body></html>\n"
    return (
        f"{head}{_VIEWER}"
        f'<script id="episodes-data" type="application/json">{_json_for_script(episodes)}'
        f"</script><script>{_asset('viewer.js')}</script></body></html>\n"
    )


def _llm_episode(
    record: dict[str, Any], pictures: bool, system: str | None, env_kwargs: dict[str, Any]
) -> dict[str, Any]:
    frames: list[str] = []
    reason = "pictures are drawn for the first episodes of each env only (--pictures)"
    if pictures:
        try:
            frames = replay_frames(record, env_kwargs)
            reason = ""
        except ReplayMismatch as exc:
            reason = f"no pictures: {exc}"
    steps = []
    frame = 0
    for turn in record["turns"]:
        steps.append(
            {
                "observation": turn["observation"],
                "answer": turn["answer"],
                "thinking": turn.get("thinking", ""),
                "action": turn["action"],
                "invalid": turn["invalid"],
                "reward": turn["reward"],
                "frame": frame if frames else None,
                "meta": (
                    f"tokens in {turn['tokens_in']}, out {turn['tokens_out']}; "
                    f"{turn['latency_s']:.2f} s; {turn['retries']} retries"
                    + (
                        " (answer cut off at max tokens)"
                        if turn["finish_reason"] == "length"
                        else ""
                    )
                ),
            }
        )
        frame += turn["action"] is not None
    label = (
        f"{record['env'].split('/')[-1]} · trial {record['trial']} · episode "
        f"{record['index'] + 1} · seed {record['seed']} · {record['outcome']}"
    )
    return {
        "label": label,
        "meta": (
            f"{record['env']}, seed {record['seed']}, model {record['model']}: outcome "
            f"{record['outcome']}, return {record['return']:g}, {record['steps']} steps, "
            f"{record['answers']} answers ({record['invalid']} invalid), tokens in "
            f"{record['tokens_in']} / out {record['tokens_out']}"
        ),
        "system": system,
        "frames": frames,
        "no_frames_reason": reason,
        "steps": steps,
        "final": record["final"],
        "final_frame": frame if frames else None,
        "outcome": record["outcome"],
        "return": record["return"],
        "success": record["success"],
    }


def _summary_table(summary: dict[str, Any]) -> str:
    head = (
        "<tr><th>env</th><th>episodes</th><th>success</th><th>95% interval</th>"
        "<th>mean return</th><th>mean length</th><th>answers</th><th>invalid</th>"
        "<th>tokens in</th><th>tokens out</th><th>latency (s)</th><th>retries</th></tr>"
    )
    rows = []
    for env_id, s in summary["envs"].items():
        low, high = s["ci95"]
        rows.append(
            f"<tr><td title='{escape(env_id)}'>{escape(env_id.split('/')[-1])}</td>"
            f"<td>{s['episodes']}</td>"
            f"<td>{s['success_rate']:.1%}</td><td>[{low:.1%}, {high:.1%}]</td>"
            f"<td>{s['mean_return']:.3f}</td><td>{s['mean_length']:.2f}</td>"
            f"<td>{s['answers']}</td><td>{s['invalid_rate']:.1%}</td>"
            f"<td>{s['tokens_in']:,}</td><td>{s['tokens_out']:,}</td>"
            f"<td>{s['latency_s_mean']:.3f}</td><td>{s['retries']}</td></tr>"
        )
    return f"<div class='wide'><table class='summary'>{head}{''.join(rows)}</table></div>"


def write_run_report(
    run_dir: str | Path,
    out: str | Path | None = None,
    pictures: int = 5,
    board: dict[str, Any] | None = None,
) -> Path:
    """Writes the run's page (default ``RUN_DIR/report.html``); returns its path.

    ``pictures`` bounds how many episodes of each env get pictures (each is a replay), so the
    page stays a few megabytes; every episode's text is always there. ``board`` (from
    :func:`hiddengrid.report.leaderboard.leaderboard`) adds the run beside the baselines.
    """
    from hiddengrid.llm.folder import write_atomic
    from hiddengrid.llm.run import read_run
    from hiddengrid.llm.summary import summarize

    folder = Path(run_dir)
    config, records = read_run(folder)  # a damaged folder is one RunDirError
    summary = summarize(records, config)
    episodes: list[dict[str, Any]] = []
    drawn: dict[str, int] = {}
    system: dict[tuple[str, int], str | None] = {}
    for r in records:
        if r["index"] == 0:
            system[(r["env"], r["trial"])] = r.get("system")
        wanted = drawn.get(r["env"], 0) < pictures
        drawn[r["env"]] = drawn.get(r["env"], 0) + 1
        kwargs = config["env_kwargs"].get(r["env"], {})
        episodes.append(_llm_episode(r, wanted, system.get((r["env"], r["trial"])), kwargs))
    body = ["<h2>Summary</h2>", _summary_table(summary)]
    if board is not None:
        from hiddengrid.report.leaderboard import leaderboard_html

        body += ["<h2>Beside the baselines (the same episodes)</h2>", leaderboard_html(board)]
    trial_episodes = int(config["trial_episodes"])
    if trial_episodes > 1:
        body.append(
            f"<h2>In-context learning: success by episode within a trial of {trial_episodes}"
            "</h2><div class='curves'>"
        )
        body += [
            learning_curve_svg(s["by_trial_episode"], env_id.split("/")[-1])
            for env_id, s in summary["envs"].items()
        ]
        body.append("</div>")
    mode = f"answer format {config['answer_format']}"
    if config["fallback"] is not None:
        mode += f", fallback {config['fallback']!r}"
    if config["env_kwargs"]:
        mode += f", env arguments {json.dumps(config['env_kwargs'], sort_keys=True)}"
    meta = (
        f"model {config['model']} at {config['base_url']}; {mode}, max tokens "
        f"{config['max_tokens']}, temperature {config['temperature']}, history "
        f"{config['history']} turns; {len(records)} episodes, seed {config['seed']}"
    )
    target = Path(out) if out is not None else folder / "report.html"
    page = render_page(f"hiddengrid LLM run: {config['model']}", meta, "".join(body), episodes)
    write_atomic(target, page)
    return target


def write_episode_page(out: str | Path, title: str, meta: str, episode: dict[str, Any]) -> Path:
    """One episode (for example a numeric agent's, from ``hiddengrid record --html``)."""
    from hiddengrid.llm.folder import write_atomic

    target = Path(out)
    write_atomic(target, render_page(title, meta, "", [episode]))
    return target
