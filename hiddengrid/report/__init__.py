"""Self-contained HTML reports: a run's summary, learning curves and a step-through viewer.

The page needs no server and no network: scripts and styles are inline and pictures are
embedded as base64 PNG (drawing them needs Pillow: ``pip install "hiddengrid[render]"``).
"""

from hiddengrid.report.page import write_episode_page, write_run_report

__all__ = ["write_episode_page", "write_run_report"]
