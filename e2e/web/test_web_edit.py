"""Editing in the browser: `drilldown serve FILE --editable` on a copy of the Sounds example
(the Add dialog, rename in place, delete with the slid-in Delete button, reorder, undo; the Sounds example's controls),
with live updates between two pages and persistence across a restart."""
import json
import pathlib
import re
import subprocess
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import ROOT, Server, drilldown_binary





@pytest.fixture
def sounds(sounds_any_store):
    """Every test here runs on the plist file and on a PostgreSQL tree table."""
    return sounds_any_store

def rows(page):
    return page.locator("#rows li.row .row-title")


def row(page, text):
    return page.locator("#rows li.row", has=page.locator(".row-title", has_text=re.compile(f"^{re.escape(text)}$")))


def tree(path):
    return subprocess.run([drilldown_binary(), "tree", str(path)], capture_output=True, text=True, check=True).stdout


def plays(url, path):
    """The `plays` attribute of the node at `path`, read through the JSON API."""
    with urllib.request.urlopen(url + "api/node/" + path) as response:
        fields = {f["key"]: f["value"] for f in json.load(response)["fields"]}
    return fields.get("plays")


def test_add_with_the_modal_done_cancel_and_empty_title(page, sounds, shot):
    page.goto(sounds.url)
    expect(rows(page)).to_have_text(["Sounds", "General"])
    page.click("#add-button")
    dialog = page.locator("#add-dialog")
    expect(dialog).to_be_visible()
    page.fill("#add-dialog-title-input", "Privacy")
    shot("edit-add-modal")
    page.click("#add-dialog-done")
    expect(dialog).to_be_hidden()
    expect(rows(page)).to_have_text(["Sounds", "General", "Privacy"])
    # Cancel changes nothing.
    page.click("#add-button")
    page.fill("#add-dialog-title-input", "Not this")
    page.click("#add-dialog-cancel")
    expect(dialog).to_be_hidden()
    # Done with an empty title adds nothing.
    page.click("#add-button")
    page.click("#add-dialog-done")
    expect(dialog).to_be_hidden()
    page.reload()
    expect(rows(page)).to_have_text(["Sounds", "General", "Privacy"])
    assert "Privacy" in tree(sounds.data) and "Not this" not in tree(sounds.data)


def test_add_without_javascript_is_a_form_page(browser, sounds):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(sounds.url)
    page.click("#add-button")
    expect(page).to_have_url(re.compile(r"/add\?"))
    page.fill("#add-title", "Battery")
    page.click("#add-done")
    expect(rows(page)).to_have_text(["Sounds", "General", "Battery"])
    page.click("#add-button")
    page.click("#add-cancel")
    page.click("#add-button")
    page.click("#add-done")
    expect(rows(page)).to_have_text(["Sounds", "General", "Battery"])
    # Delete asks on its own page first.
    page.click("#edit-button")
    row(page, "Battery").locator(".delete-toggle").click()
    expect(page.locator("#delete-form")).to_contain_text("Battery")
    page.click("#delete-confirm")
    expect(rows(page)).to_have_text(["Sounds", "General"])
    context.close()


def test_rename_delete_with_confirmation_reorder_and_undo(page, sounds, shot):
    page.goto(sounds.url + "l/0")
    page.click("#edit-button")
    expect(page).to_have_url(re.compile(r"edit=1"))
    shot("edit-mode")
    ring = row(page, "Vibrate on Ring")
    ring.locator(".rename-cell").click()
    ring.locator(".rename-input").fill("Vibrate Always")
    ring.locator(".rename-input").press("Enter")
    expect(row(page, "Vibrate Always").locator(".rename-cell")).to_be_focused()
    # Reorder: move the first row down (its handle, grabbed from the keyboard).
    row(page, "Vibrate Always").locator(".drag-handle").focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")
    expect(rows(page)).to_have_text(["Vibrate on Silent", "Vibrate Always", "Ringer and Alerts", "Ringtone", "Text Tone"])
    expect(row(page, "Vibrate Always").locator(".drag-handle")).to_be_focused()
    page.keyboard.press("Space")
    # Delete: the ⊖ slides in a Delete button; a press elsewhere keeps the row, Delete deletes it.
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    row(page, "Text Tone").locator(".delete-toggle").click()
    expect(row(page, "Text Tone").locator(".delete-confirm")).to_be_visible()
    page.locator("#title").click()
    expect(row(page, "Text Tone").locator(".delete-confirm")).to_be_hidden()
    expect(rows(page)).to_have_count(5)
    row(page, "Text Tone").locator(".delete-toggle").click()
    row(page, "Text Tone").locator(".delete-confirm").click()
    expect(rows(page)).to_have_count(4)
    assert dialogs == []
    # Undo brings it back; undo again restores the order.
    page.click("#undo")
    expect(rows(page)).to_have_count(5)
    page.click("#undo")
    expect(rows(page)).to_have_text(["Vibrate Always", "Vibrate on Silent", "Ringer and Alerts", "Ringtone", "Text Tone"])
    page.click("#redo")
    expect(rows(page).first).to_have_text("Vibrate on Silent")
    text = tree(sounds.data)
    assert "Vibrate Always" in text and "Text Tone" in text


def test_a_switch_flipped_in_one_page_appears_in_another_without_reload(page, sounds, shot):
    other = page.context.new_page()
    other.goto(sounds.url + "l/0")
    page.goto(sounds.url + "l/0")
    switch_a = row(page, "Vibrate on Silent").locator(".switch")
    switch_b = row(other, "Vibrate on Silent").locator(".switch")
    expect(switch_b).to_have_attribute("aria-checked", "false")
    other.evaluate("window.__notReloaded = true")
    # Both pages follow /events before the change is made.
    expect(page.locator("body")).to_have_attribute("data-live", "1")
    expect(other.locator("body")).to_have_attribute("data-live", "1")
    start = time.monotonic()
    switch_a.click()
    expect(switch_b).to_have_attribute("aria-checked", "true", timeout=1000)
    print(f"\nswitch shown in a second page after {(time.monotonic() - start) * 1000:.0f} ms")
    assert other.evaluate("window.__notReloaded") is True
    shot("edit-switch-live")
    # A Play button counts plays (the Sounds example), visible in the detail.
    row(page, "Ringtone").get_by_role("button", name="Play").click()
    row(page, "Ringtone").get_by_role("button", name="Play").click()
    # Poll for the exact count (not a sleep, and not "2" inside "12").
    deadline = time.monotonic() + 5
    while plays(sounds.url, "0.3") != "2":
        assert time.monotonic() < deadline, f"plays is {plays(sounds.url, '0.3')!r} after 5 s, not '2'"
        time.sleep(0.05)
    other.goto(sounds.url + "d/0.3")
    field = other.locator("#fields .field[data-key=plays]")
    expect(field.locator("dd")).to_have_text(re.compile(r"^\s*2\s*$"))


def test_a_slider_change_persists_after_a_restart(page, sounds):
    page.goto(sounds.url + "l/0")
    slider = row(page, "Ringer and Alerts").locator("input[type=range]")
    slider.fill("85")
    expect(row(page, "Ringer and Alerts").locator(".row-subtitle")).to_have_text("85%")
    sounds.stop()
    again = Server(sounds.data, "--schema", sounds.schema, "--editable")
    try:
        with urllib.request.urlopen(again.url + "api/level/0") as response:
            level = json.load(response)
        assert level["rows"][2]["subtitle"] == "85%"
        page.goto(again.url + "l/0")
        expect(row(page, "Ringer and Alerts").locator("input[type=range]")).to_have_value("85")
    finally:
        again.stop()


def test_the_bundled_example_is_edited_as_a_copy_in_the_data_folder(tmp_path):
    from webclient import Session
    bundle = pathlib.Path(drilldown_binary()).parent / "DrillDown_DrillDownCLI.resources/Bundled/Music/library.yaml"
    before = bundle.read_bytes() if bundle.exists() else None
    data_dir = tmp_path / "Music"
    server = Server("--editable", "--data-dir", data_dir)
    try:
        session = Session(server.url)
        status, body = session.post("/api/edit/rename/0", {"title": "Renamed Artist"})
        assert status == 200 and body["changed"]
        session.close()
    finally:
        server.stop()
    assert "Editing the bundled example's copy in " + str(data_dir) in server.proc.stderr.read()
    assert "Renamed Artist" in (data_dir / "library.yaml").read_text()
    if before is not None:
        assert bundle.read_bytes() == before
