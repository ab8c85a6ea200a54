"""The History screen, live and by keyboard (issue 32, item 3): another user's change appears on an
open History screen without a reload (the screen follows /events like the level pages) and the
element the keyboard user was on keeps the focus, and a
keyboard-only run — Tab to an entry's Revert, Enter — makes the revert a new entry that gets the
focus, axe clean in light and dark, on a phone and a desktop."""
import pytest
from playwright.sync_api import expect

from test_history import PASSWORD, WCAG, api, axe_playwright_python, server, sign_in, signed_in_page  # noqa: F401 (fixture)


def test_another_users_change_appears_on_an_open_history_screen_and_the_focus_stays(server, browser):
    cookie, token = sign_in(server.url, "ed")
    assert api(server.url, "POST", "api/edit/rename/0.1", cookie, token, {"title": "Muse (band)"})[0] == 200
    number = api(server.url, "GET", "api/history", cookie)[1]["entries"][0]["id"]
    ed = signed_in_page(browser, server.url, "ed")
    ed.goto(server.url + "history")
    expect(ed.locator("body")).to_have_attribute("data-live", "1")
    ed.evaluate("window.sameDocument = true")
    ed.locator(f"#revert-{number}").focus()
    # ana changes a title in her own browser.
    ana = signed_in_page(browser, server.url, "ana")
    status = ana.evaluate("""async () => {
        const token = document.querySelector('meta[name="csrf-token"]').content;
        const r = await fetch('/api/edit/rename/1', {method: 'POST', credentials: 'same-origin',
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': token}, body: JSON.stringify({title: 'Jazz (ana)'})});
        return r.status;
    }""")
    assert status == 200
    entry = ed.locator(".history-entry").first
    expect(entry).to_contain_text("Rename of Jazz to Jazz (ana)")
    expect(entry.locator(".history-who")).to_have_text("ana")
    expect(ed.locator(".history-entry")).to_have_count(2)
    # The same document, and the keyboard user's place in it is kept: the Revert button they were on.
    assert ed.evaluate("window.sameDocument") is True
    expect(ed.locator(f"#revert-{number}")).to_be_focused()
    ed.context.close()
    ana.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_a_keyboard_only_revert_on_the_history_screen(server, browser, width, scheme):
    cookie, token = sign_in(server.url, "ed")
    assert api(server.url, "POST", "api/edit/rename/0.1", cookie, token, {"title": "Muse (band)"})[0] == 200
    number = api(server.url, "GET", "api/history", cookie)[1]["entries"][0]["id"]
    page = signed_in_page(browser, server.url, "ed", viewport={"width": width, "height": 800}, color_scheme=scheme)
    page.goto(server.url + "history")
    expect(page.locator("body")).to_have_attribute("data-live", "1")
    revert = page.locator(f"#revert-{number}")
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == f"revert-{number}":
            break
    expect(revert).to_be_focused()
    page.keyboard.press("Enter")
    made = page.locator(".history-entry", has_text=f"Revert of #{number}")
    expect(made).to_have_count(1)
    expect(made).to_be_focused()
    expect(page.locator(".history-entry").first).to_have_id(made.get_attribute("id"))
    assert api(server.url, "GET", "api/node/0.1", cookie)[1]["title"] == "Muse"
    # The revert's own entry may be reverted too: Tab goes on from the focused entry to its button.
    page.keyboard.press("Tab")
    expect(made.locator("button", has_text="Revert")).to_be_focused()
    result = axe_playwright_python.Axe().run(page, options=WCAG)
    found = [f"{v['id']}: {' '.join(n['target'])}" for v in result.response["violations"] for n in v["nodes"]]
    assert not found, found
    page.context.close()
