"""The HTML report in a real browser (headless Chromium driven by Selenium): it renders, its
filters work, and the console stays clean. Skips, visibly, where Chromium is not installed."""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from migrate.model import Finding
from migrate.render import renderer
from tests.chromium import needs_chromium, needs_selenium
from tests.report_fixture import demo_report

pytestmark = [needs_selenium, needs_chromium]




def visible_rows(driver) -> int:
    return len(driver.find_elements("css selector", "#findings-table tbody tr"))


def test_demo_report_in_chromium(browser, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(renderer("html")(demo_report()))
    browser.get(page.as_uri())
    workloads = browser.find_elements("css selector", "#workload-table tbody tr")
    largest_first = sorted(demo_report().workloads, key=lambda w: (-w.effort.likely, w.name))
    assert [w.find_element("css selector", "td").text for w in workloads] == [w.name for w in largest_first]
    total = visible_rows(browser)
    assert total == len(demo_report().findings)
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "f-class")).select_by_visible_text("minor-adaptation")
    minor = visible_rows(browser)
    assert 0 < minor < total
    assert {r.get_attribute("data-class") for r in browser.find_elements("css selector", "#findings-table tbody tr")} \
        == {"minor-adaptation"}
    browser.find_element("id", "f-text").send_keys("nvidia-smi")
    assert 0 < visible_rows(browser) < minor
    browser.save_screenshot(str(tmp_path / "report.png"))
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_twenty_thousand_findings_open_without_freezing(browser, tmp_path: Path) -> None:
    base = demo_report()
    many: list[Finding] = [replace(base.findings[i % len(base.findings)], line=1 + i, column=1 + i % 7)
                           for i in range(20_000)]
    report = replace(base, findings=tuple(many))
    started = time.perf_counter()
    html = renderer("html")(report)
    rendered = time.perf_counter() - started
    page = tmp_path / "big.html"
    page.write_text(html)
    started = time.perf_counter()
    browser.get(page.as_uri())
    count = browser.find_element("id", "f-count").text
    opened = time.perf_counter() - started
    assert count.startswith("20000 of 20000 findings (showing 100)")
    assert visible_rows(browser) == 100
    print(f"20,000 findings: {len(html) / 1e6:.1f} MB of HTML, rendered in {rendered:.2f} s, opened in {opened:.2f} s")


def test_two_hundred_workloads_stay_short_at_1400_px(browser, tmp_path: Path) -> None:
    """A repository of many workloads (cuda-samples has ~200) gives a page under 20,000 px."""
    base = demo_report()
    workloads = tuple(replace(w, name=f"{w.name}-{i}", depends_on=tuple(f"{d}-{i}" for d in w.depends_on))
                      for i in range(40) for w in base.workloads)
    findings = tuple(replace(f, workload=f"{f.workload}-{i}") for i in range(40) for f in base.findings)
    page = tmp_path / "many.html"
    page.write_text(renderer("html")(replace(base, workloads=workloads, findings=findings)))
    browser.set_window_size(1400, 1000)
    browser.get(page.as_uri())
    height = browser.execute_script("return document.documentElement.scrollHeight")
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert height < 20_000 and width <= 1400, (height, width)
    assert len(browser.find_elements("css selector", "#workload-table tbody tr")) == 25
    assert "others" in browser.find_element("id", "workload-table").text
    assert len(browser.find_elements("css selector", ".graph g rect")) <= 24


def test_routes_show_in_their_column_and_detail_escaped(browser, tmp_path: Path) -> None:
    """The route column (workloads/route.py via render/route_view.py) and the route detail of a workload in a
    real browser: an alternative with its evidence and caveats, and a hostile name shown as text, never run."""
    base = demo_report()
    hostile = "<img src=x onerror=alert(1)>"
    routed = {"route": "port", "via": None, "why": "convert", "source": None, "notes": [f"note {hostile}"],
              "uses": [], "alternative": {"route": "compile-unchanged", "via": "SCALE", "why": f"why {hostile}",
                                          "evidence": ["gfx90a: 18 of 44 projects pass"],
                                          "caveats": ["free for non-commercial use only"],
                                          "source": "https://github.com/spectral-compute/scale-validation"}}
    first = replace(base.workloads[0], route=routed)
    registry = {"route": "amd-build", "via": f"FlashAttention {hostile}", "why": "install", "source": "https://a.b",
                "notes": [], "uses": [], "alternative": None}
    second = replace(base.workloads[1], route=registry)
    page = tmp_path / "routes.html"
    page.write_text(renderer("html")(replace(base, workloads=(first, second, *base.workloads[2:]))))
    browser.get(page.as_uri())
    headers = [th.text for th in browser.find_elements("css selector", "#workload-table thead th")]
    assert headers[:4] == ["workload", "kind", "route", "class"]
    cells = {row.find_element("css selector", "td").text: row.find_element("css selector", "td.route").text
             for row in browser.find_elements("css selector", "#workload-table tbody tr")}
    assert cells[first.name] == "port, or compile unchanged via SCALE"
    assert cells[second.name] == f"amd-build via FlashAttention {hostile}"  # the markup shown as text
    details = [e.get_attribute("textContent") for e in browser.find_elements("css selector", ".route-detail")]
    detail = " ".join(details)  # the sections follow the workloads' hand work, not their order
    assert "evidence: gfx90a: 18 of 44 projects pass" in detail and "caveat: free for non-commercial use only" in detail
    assert browser.find_elements("css selector", "img[src=x]") == []
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
