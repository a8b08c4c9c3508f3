"""The inventory page in headless Chromium with 5,000 repositories: it pages, sorts and filters in the
browser, fast, with a clean console. Skips, visibly, where Chromium is not installed."""
from __future__ import annotations

import time
from pathlib import Path

from migrate.inventory import merge, record
from migrate.inventory.html import render
from migrate.model import CLASSES
from tests.chromium import needs_chromium, needs_selenium

pytestmark = [needs_selenium, needs_chromium]
REPOS = 5000


def inventory() -> merge.Inventory:
    records = [record.failed(name=f"org/repo-{i:04d}", source="https://git.example.com", error="clone failed")
               if i % 500 == 7 else
               record.RepoRecord(name=f"org/repo-{i:04d}", source=f"https://git.example.com/org/repo-{i:04d}",
                                 status="ok", migration_class=CLASSES[i % 4], findings=i % 97, lines=1000 + i,
                                 effort={"low": i / 2, "likely": float(i), "high": i * 2.0})
               for i in range(REPOS)]
    return merge.build(records, {f"org/repo-{i:04d}": f"team-{i % 7}" for i in range(REPOS)})




def names(driver) -> list[str]:
    return [row.find_element("css selector", "td").text for row in driver.find_elements("css selector", "#repos tbody tr")]


def test_five_thousand_repositories_page_sort_and_filter(browser, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select

    page = tmp_path / "inventory.html"
    page.write_text(render(inventory()))
    started = time.perf_counter()
    browser.get(page.as_uri())
    assert len(names(browser)) == 50  # one page, not 5,000 rows in the DOM
    loaded = time.perf_counter() - started
    assert loaded < 10, loaded
    assert names(browser)[0] == "org/repo-4999"  # sorted by likely effort, largest first
    assert "page 1 of 100" in browser.find_element("id", "page-info").text
    browser.find_element("id", "next").click()
    assert names(browser)[0] == "org/repo-4949"
    browser.find_element("css selector", '#repos th[data-f="name"]').click()
    assert names(browser)[:2] == ["org/repo-0000", "org/repo-0001"]
    Select(browser.find_element("id", "f-class")).select_by_visible_text("incompatible")
    assert "1240 of 5000" in browser.find_element("id", "page-info").text
    Select(browser.find_element("id", "f-owner")).select_by_visible_text("team-3")
    shown = names(browser)
    assert shown and all(int(n[-4:]) % 4 == 3 and int(n[-4:]) % 7 == 3 for n in shown)
    Select(browser.find_element("id", "f-owner")).select_by_index(0)
    Select(browser.find_element("id", "f-class")).select_by_visible_text("failed")
    assert "10 of 5000" in browser.find_element("id", "page-info").text
    box = browser.find_element("id", "q")
    Select(browser.find_element("id", "f-class")).select_by_index(0)
    box.send_keys("repo-123")
    assert sorted(names(browser)) == [f"org/repo-{n}" for n in range(1230, 1240)]
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
