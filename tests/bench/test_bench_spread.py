"""``hiddengrid bench`` measures each configuration in several windows and gives the median
with its spread, flagging a row too noisy to quote."""

from __future__ import annotations

import pytest

from hiddengrid.bench import NOISY, WINDOWS, BenchRow, Rate, alternating_rates, format_table


class FakeRun:
    """A run whose windows report the given rates in turn (one step per 1/rate seconds)."""

    def __init__(self, rates: list[float]) -> None:
        self.rates = iter(rates)
        self.calls = 0

    def measure(self, seconds: float) -> tuple[int, float]:
        self.calls += 1
        return 1000, 1000 / next(self.rates)


def test_the_median_window_and_its_spread():
    rate = Rate([5.98e6, 10.8e6, 9.0e6, 9.5e6, 9.2e6])
    assert rate == 9.2e6
    assert rate.spread == pytest.approx((10.8e6 - 5.98e6) / 9.2e6)


def test_windows_alternate_and_each_run_gets_its_own_median():
    a = FakeRun([10.0, 11.0, 9.0, 10.0, 50.0])
    b = FakeRun([20.0, 20.0, 20.0, 20.0, 20.0])
    ra, rb = alternating_rates([a, b], seconds=1.0)
    assert a.calls == b.calls == WINDOWS
    assert ra == pytest.approx(10.0) and rb == pytest.approx(20.0)
    assert ra.spread == pytest.approx(41 / 10) and rb.spread == 0


def test_a_noisy_row_is_flagged_and_a_quiet_one_is_not():
    quiet = BenchRow("hiddengrid/X-v0", "native vector N=64", 1e6, ratio_to_sync=1.0, spread=0.05)
    noisy = BenchRow("hiddengrid/X-v0", "native vector N=4096", 1e7, ratio_to_sync=10.0)
    noisy.spread = NOISY + 0.3
    text = format_table([quiet, noisy]).splitlines()
    assert "spread" in text[0]
    (quiet_line,) = [line for line in text if "N=64" in line]
    (noisy_line,) = [line for line in text if "N=4096" in line]
    assert quiet_line.rstrip().endswith("5%") and "noisy" not in quiet_line
    assert noisy_line.rstrip().endswith("noisy") and "50%" in noisy_line
    assert any(line.startswith("noisy:") for line in text)
