"""The playground against the provision example, in a real browser: the wizard's two rounds
answered by filling forms, a decline, an invalid answer asked again, and a task with progress
and a mid-run question."""

from __future__ import annotations

import re

from conftest import screenshot

EXAMPLE = "provision"


def open_tool(page, name: str) -> None:
    page.click(f"nav button[data-name='{name}']")
    page.wait_for_selector("#item:not([hidden])")


def question(page, key: str):
    """The open (unanswered) question `key`, once it is shown."""
    card = page.locator(f"#timeline .question[data-key='{key}']:not(.answered)")
    card.wait_for()
    return card


def result_text(page) -> str:
    card = page.locator("#result .card")
    card.wait_for()
    return card.inner_text()


def test_the_wizard_takes_two_rounds_of_forms(page):
    open_tool(page, "wizard")
    # The graph the compiler checked: `age` waits for `name`.
    assert page.locator("#graph .node.question").count() == 2
    assert page.locator("#graph path.edge[data-from='name'][data-to='age']").count() == 1
    page.click("text=Call tool")

    name = question(page, "name")
    assert "What is your name?" in name.inner_text()
    name.locator("input[name='name']").fill("Ada")
    name.locator("button", has_text="Accept").click()

    age = question(page, "age")
    assert "How old are you, Ada?" in age.inner_text()
    age.locator("input[name='age']").fill("36")
    screenshot(page, "wizard-round-2")
    age.locator("button", has_text="Accept").click()

    assert "Hello Ada, you are 36." in result_text(page)
    legs = page.locator("#timeline > li")
    assert legs.count() == 3
    assert [legs.nth(i).get_attribute("class") for i in range(3)] == ["input_required", "input_required", "complete"]
    # Each retry carries the sealed state: its size is shown, never its contents.
    assert re.search(r"requestState \(\d+ bytes\)", legs.nth(2).inner_text())
    screenshot(page, "wizard-done")


def test_a_declined_question_reaches_the_tool(page):
    open_tool(page, "confirm_delete")
    page.fill("#arguments input[name='path']", "/tmp/x")
    page.click("text=Call tool")
    confirm = question(page, "confirm")
    assert "Really delete /tmp/x?" in confirm.inner_text()
    confirm.locator("button", has_text="Decline").click()
    assert "Kept /tmp/x (declined)." in result_text(page)
    assert "answered: decline" in page.locator("#timeline .question[data-key='confirm']").inner_text()
    screenshot(page, "confirm-declined")


def test_an_invalid_answer_is_asked_again(page):
    open_tool(page, "wizard")
    page.click("text=Call tool")
    name = question(page, "name")
    name.locator("input[name='name']").fill("Ada")
    name.locator("button", has_text="Accept").click()

    age = question(page, "age")
    age.locator("input[name='age']").fill("-5")
    age.locator("button", has_text="Accept").click()

    # The server checks the answer against the schema (minimum 0) and asks again, saying why.
    again = question(page, "age")
    assert "please answer again" in again.inner_text()
    assert page.locator("#timeline > li").count() == 3
    screenshot(page, "wizard-asked-again")
    again.locator("input[name='age']").fill("36")
    again.locator("button", has_text="Accept").click()
    assert "Hello Ada, you are 36." in result_text(page)
    assert page.locator("#timeline > li").count() == 4


def test_a_task_shows_progress_and_asks_mid_run(page):
    open_tool(page, "backup")
    page.fill("#arguments input[name='database']", "orders")
    page.click("text=Call tool")
    region = question(page, "region")
    region.locator("input[name='region']").fill("eu-west")
    region.locator("button", has_text="Accept").click()

    task = page.locator(".task-panel")
    task.wait_for()
    # The body reports 3 of 4 parts before it asks: the bar shows it.
    overwrite = question(page, "overwrite")
    bar = task.locator("progress")
    assert float(bar.get_attribute("max") or bar.evaluate("b => b.max")) == 4
    assert bar.evaluate("b => b.value") == 3
    assert task.get_attribute("data-status") == "input_required"
    screenshot(page, "backup-mid-run")
    overwrite.locator("input[type='checkbox']").check()
    overwrite.locator("button", has_text="Accept").click()

    assert "Backed up orders to backups/eu-west/orders.dump (overwritten)." in result_text(page)
    assert task.get_attribute("data-status") == "completed"
    assert bar.evaluate("b => b.value") == 4
    screenshot(page, "backup-done")


def test_url_sampling_and_roots_questions(page):
    # URL mode: a link to open, then Done.
    open_tool(page, "link_account")
    page.click("text=Call tool")
    consent = question(page, "_consent")
    assert consent.locator("a").get_attribute("href") == "https://accounts.example.com/link"
    consent.locator("button", has_text="Done").click()
    assert "Account linked." in result_text(page)

    # Sampling: the prompt is shown; the user replies as the model.
    open_tool(page, "summarize")
    page.fill("#arguments input[name='text']", "A long story.")
    page.click("text=Call tool")
    summary = question(page, "summary")
    assert "Summarize in one sentence: A long story." in summary.inner_text()
    summary.locator("textarea[name='reply']").fill("Short.")
    summary.locator("button", has_text="Send reply").click()
    assert "Summary: Short." in result_text(page)

    # Roots: an editable list.
    open_tool(page, "workspace")
    page.click("text=Call tool")
    roots = question(page, "roots")
    roots.locator("input[name='uri']").first.fill("file:///srv/app")
    roots.locator("button", has_text="Add root").click()
    roots.locator("input[name='uri']").nth(1).fill("file:///srv/data")
    screenshot(page, "workspace-roots")
    roots.locator("button", has_text="Send roots").click()
    assert "Roots: file:///srv/app, file:///srv/data" in result_text(page)


def test_a_prompt_and_a_template_ask_too(page):
    page.click("nav #prompts button[data-name='greeting']")
    assert page.locator("#graph .node.question").count() == 1
    page.click("text=Get prompt")
    name = question(page, "name")
    name.locator("input[name='name']").fill("Ada")
    name.locator("button", has_text="Accept").click()
    assert "Hello, Ada! Welcome aboard." in result_text(page)

    page.click("nav #templates button[data-name='notes://{id}']")
    page.fill("#arguments input[name='id']", "42")
    page.click("text=Read resource")
    passphrase = question(page, "passphrase")
    assert "Passphrase for note 42?" in passphrase.inner_text()
    passphrase.locator("input[name='passphrase']").fill("open sesame")
    passphrase.locator("button", has_text="Accept").click()
    assert "Note 42: the eagle lands at dawn." in result_text(page)
    screenshot(page, "note-template")
