"""One spec text per env: the env's docs page holds it, the env class's docstring is read from
the page.

An env's ``README.md`` marks its spec (description, actions, observation, rewards, end, info,
arguments, scenario) between ``<!-- spec -->`` and ``<!-- /spec -->``; ``spec_from_page``
returns the page's title and that part, so ``help(env)`` and the page can never drift apart
(the MiniGrid habit of one text for both, kept from the page's side because the page also
carries pictures, measured tables and decisions that do not belong in a docstring).
"""

from __future__ import annotations

from importlib import resources

BEGIN = "<!-- spec -->"
END = "<!-- /spec -->"


def spec_from_page(package: str) -> str:
    """The title line and the marked spec of ``package``'s ``README.md``."""
    page = resources.files(package).joinpath("README.md").read_text(encoding="utf-8")
    if page.count(BEGIN) != 1 or page.count(END) != 1:
        raise ValueError(f"{package}/README.md must mark its spec once with {BEGIN} ... {END}")
    title = page.splitlines()[0].lstrip("# ").strip()
    body = page[page.index(BEGIN) + len(BEGIN) : page.index(END)].strip()
    return f"{title}\n\n{body}\n"
