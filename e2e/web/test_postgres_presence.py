"""Presence across instances (issue 32, item 4): two `drilldown serve` instances with accounts on one
PostgreSQL table tell each other who is on which level (NOTIFY on `drilldown_<table>_presence`): a
user on instance B sees the initials of a user on instance A on the same level, the row A renames is
marked, and the initials go when A's page closes, or 30 s after instance A was killed."""
import pytest
from playwright.sync_api import expect

from conftest import Server
from test_accounts import accounts_folder
from test_postgres import PG_URL, SOUNDS, sounds_table, table_url, wait_for_listeners  # noqa: F401  (the fixture)
from test_presence import avatars, signed_in, visit

pytestmark = pytest.mark.skipif(not PG_URL, reason="DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server (Scripts/test.sh starts one)")


def test_presence_crosses_instances_of_one_table(sounds_table, tmp_path, browser):
    folder = accounts_folder(tmp_path, "unused.yaml", "", {"ana": "editor", "bo": "editor"}, "grants: []")

    def serve():
        return Server(table_url(sounds_table), "--schema", SOUNDS / "schema.yaml", "--editable",
                      "--users", folder / "users.yaml", "--secret-file", folder / "secret")

    a, b = serve(), serve()
    try:
        wait_for_listeners(f"drilldown_{sounds_table}_presence", 2)
        ana = signed_in(browser, a.url, "ana")
        bo = signed_in(browser, b.url, "bo")
        visit(ana, a.url + "l/0?edit=1")
        visit(bo, b.url + "l/0")
        expect(avatars(bo)).to_have_count(1, timeout=15000)
        expect(avatars(bo)).to_have_attribute("title", "ana")
        expect(avatars(ana)).to_have_attribute("title", "bo", timeout=15000)
        # Not on another level of B.
        visit(bo, b.url + "l/1")
        expect(bo.locator("#presence")).to_be_hidden()
        visit(bo, b.url + "l/0")
        expect(avatars(bo)).to_have_count(1, timeout=15000)
        ana.click('#rows li[data-path="0.3"] .rename-cell')
        expect(bo.locator('#rows li[data-path="0.3"] .editing-marker')).to_have_text("ANana is editing this row", timeout=15000)
        ana.keyboard.press("Escape")
        expect(bo.locator('#rows li[data-path="0.3"] .editing-marker')).to_have_count(0, timeout=15000)
        ana.context.close()
        expect(avatars(bo)).to_have_count(0, timeout=15000)
        # An instance killed without a word: its pages expire on B 30 s after their last heartbeat.
        ana = signed_in(browser, a.url, "ana")
        visit(ana, a.url + "l/0")
        expect(avatars(bo)).to_have_count(1, timeout=15000)
        a.proc.kill()
        a.proc.wait()
        expect(avatars(bo)).to_have_count(0, timeout=45000)
        ana.context.close()
        bo.context.close()
    finally:
        a.stop()
        b.stop()


def test_a_marker_follows_its_row_through_another_instances_change_and_undo(sounds_table, tmp_path, browser):
    """Ana (on instance A) renames Ringtone; Bo deletes the row above it and undoes that on instance
    B. Cy, on instance A too, sees the marker stay on Ringtone: A learns of B's steps from their
    history records and moves its own pages (and tells B)."""
    from test_accounts import sign_in
    from test_presence_marks import post
    from test_presence_views import delete
    folder = accounts_folder(tmp_path, "unused.yaml", "", {"ana": "editor", "bo": "editor", "cy": "editor"}, "grants: []")

    def serve():
        return Server(table_url(sounds_table), "--schema", SOUNDS / "schema.yaml", "--editable",
                      "--users", folder / "users.yaml", "--secret-file", folder / "secret")

    a, b = serve(), serve()
    ana = cy = None
    try:
        wait_for_listeners(f"drilldown_{sounds_table}_presence", 2)
        ana, cy = signed_in(browser, a.url, "ana"), signed_in(browser, a.url, "cy")
        bo, bo_token = sign_in(b.url, "bo")
        visit(ana, a.url + "l/0?edit=1")
        visit(cy, a.url + "l/0")
        ringtone = cy.locator('#rows li[data-path="0.3"] .row-title').text_content()
        ana.click('#rows li[data-path="0.3"] .rename-cell')
        expect(cy.locator('#rows li[data-path="0.3"] .editing-marker')).to_have_count(1)

        def marked_on_cy(path):
            expect(cy.locator(f'#rows li[data-path="{path}"] .row-title')).to_have_text(ringtone, timeout=15000)
            expect(cy.locator(f'#rows li[data-path="{path}"] .editing-marker')).to_have_count(1, timeout=15000)
            expect(cy.locator("#rows li.being-edited")).to_have_count(1)

        delete(b, bo, bo_token, "0.0")
        marked_on_cy("0.2")
        post(b, bo, bo_token, "undo")
        marked_on_cy("0.3")
    finally:
        for page in (ana, cy):
            if page:
                page.context.close()
        a.stop()
        b.stop()
