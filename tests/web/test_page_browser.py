"""The page in a real browser: Playwright drives Debian's Chromium (``/usr/bin/chromium``,
installed by ``make test``; no browser is ever downloaded) against ``agentprompt ui`` run
as a user runs it. Screenshots of each main state go to ``tests/web/output/``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Dialog, Page, expect, sync_playwright

from agentprompt.bridge.state import find_session

pytestmark = pytest.mark.slow

# A page's answer waits on the server's work (a whole prompt built, a reply applied): give
# a machine busy with other jobs longer than Playwright's 5 s before a check gives up.
expect.set_options(timeout=20_000)

CHROMIUM = Path("/usr/bin/chromium")
OUTPUT = Path(__file__).parent / "output"
REBOUND_HOST = "rebound.invalid"
"""A host name the browser resolves to 127.0.0.1, as a DNS-rebinding page would."""
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--host-resolver-rules=MAP {REBOUND_HOST} 127.0.0.1",
]


@pytest.fixture
def page_url(repo: Path) -> Iterator[str]:
    """``agentprompt ui --root REPO --port 0`` running; yields the URL it printed."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-c", "from agentprompt.cli.main import main; main()"]
    process = subprocess.Popen(
        [*command, "ui", "--root", str(repo), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            process.kill()
            pytest.fail(f"agentprompt ui did not start: {url!r} {process.communicate()[1]}")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make chromium` (apt-get install chromium)")
    os.environ["PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD"] = "1"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, page_url: str) -> Iterator[Page]:
    """A fresh tab on the page, allowed to use the clipboard, once the page has loaded."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(page_url))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    tab = context.new_page()
    tab.goto(page_url)
    expect(tab.locator("body")).to_have_attribute("data-ready", "true")
    yield tab
    context.close()


def shot(page: Page, name: str) -> None:
    """Save a screenshot a person can look at."""
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{name}.png"), full_page=True)


def test_drawer_opens_and_closes_on_outside_click_and_escape(page: Page) -> None:
    toggle = page.get_by_role("button", name="💬 Snippets")
    drawer = page.locator("#snippet-drawer")
    expect(drawer).to_be_hidden()
    toggle.click()
    expect(drawer).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    first = drawer.get_by_role("button").first
    expect(first).to_have_text("✂️")
    expect(first).to_have_attribute("title", "Your last edit was truncated")
    shot(page, "02-snippet-drawer")
    page.locator("#breakdown-heading").click()
    expect(drawer).to_be_hidden()
    toggle.click()
    expect(drawer).to_be_visible()
    page.keyboard.press("Escape")
    expect(drawer).to_be_hidden()
    expect(toggle).to_be_focused()
    page.keyboard.press("Enter")
    expect(drawer).to_be_visible()


def test_snippet_is_inserted_at_the_cursor_and_the_input_grows(page: Page) -> None:
    task = page.get_by_label("Task")
    task.fill("Fix the bug now.")
    task.evaluate("t => t.setSelectionRange(8, 8)")
    height = task.evaluate("t => t.offsetHeight")
    page.get_by_role("button", name="💬 Snippets").click()
    message = page.evaluate("() => document.querySelector('.snippet').title")
    assert message == "Your last edit was truncated"
    page.locator(".snippet").first.click()
    inserted = "Your last edit was truncated, please continue."
    expect(task).to_have_value("Fix the " + inserted + "bug now.")
    assert task.evaluate("t => t.selectionStart") == 8 + len(inserted)
    expect(task).to_be_focused()
    task.evaluate("t => t.setSelectionRange(t.value.length, t.value.length)")
    for _ in range(4):
        page.locator(".snippet").nth(1).click()
        task.press("Enter")
    assert task.evaluate("t => t.offsetHeight") > height
    assert task.evaluate("t => t.scrollHeight <= t.clientHeight + 1")
    shot(page, "03-snippet-inserted")


def test_round_trip_build_copy_preview_apply(page: Page, repo: Path, sample_reply: str) -> None:
    shot(page, "01-page")
    expect(page.locator("#tree")).to_contain_text("utils.ts")
    page.get_by_label("Task").fill("parseJSON throws on invalid input; make it return null.")
    page.get_by_role("button", name="Add src/utils.ts").click()
    expect(page.get_by_role("radio", name="edit")).to_be_checked()
    page.get_by_role("button", name="Build prompt").click()
    part = page.locator("#parts .part").first
    expect(part).to_contain_text("export function parseJSON")
    expect(part.locator(".tokens")).to_contain_text("tokens")
    expect(page.locator("#prompt-status")).to_contain_text("edit mode")
    shot(page, "04-prompt-built")

    part.get_by_role("button", name="Copy part 1").click()
    expect(page.locator("#prompt-status")).to_contain_text("Copied part 1")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == part.locator(".part-text").inner_text()
    assert "export function parseJSON" in copied

    page.get_by_label("Paste the model's reply").fill(sample_reply)
    page.get_by_role("button", name="Preview").click()
    result = page.locator("#reply-result")
    expect(result).to_contain_text("Preview")
    expect(result).to_contain_text("Requests files: scripts/report.py")
    expect(result.locator(".diff .add").first).to_be_visible()
    assert "return null;" not in (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    # The next prompt as Apply would make it: a follow-up with the requested file; the
    # files the reply edits the chat already knows.
    result.get_by_text("Next prompt after Apply").click()
    expect(result.locator(".next-prompt-text")).to_contain_text("scripts/report.py")
    expect(result.locator(".next-prompt-text")).not_to_contain_text("return null;")
    shot(page, "05-reply-preview")

    page.get_by_role("button", name="Apply").click()
    expect(result).to_contain_text("Applied")
    expect(result).to_contain_text("Added to the context: scripts/report.py")
    assert "return null;" in (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    expect(page.locator("#parts .part").first).to_contain_text("scripts/report.py")
    expect(page.get_by_role("button", name="Remove scripts/report.py")).to_be_visible()
    shot(page, "06-reply-applied")

    sections = page.locator("#sections-table")
    expect(sections).to_be_visible()
    expect(sections).to_contain_text("scripts/report.py")
    rows = page.locator("#breakdown-table tbody tr")
    expect(rows.first).to_contain_text("L0")
    expect(page.locator("#breakdown-table")).to_contain_text("file:scripts/report.py")
    expect(page.locator("#breakdown-total")).to_contain_text("tokens")
    expect(page.locator("#breakdown-table")).to_contain_text("rewritten")  # nothing recorded yet
    expect(page.locator("#breakdown-served")).to_contain_text("every block is written once")
    page.locator("#breakdown").screenshot(path=str(OUTPUT / "07-breakdown.png"))


def test_empty_task_is_refused_with_a_clear_message(page: Page, repo: Path) -> None:
    page.get_by_role("button", name="Build prompt").click()
    expect(page.get_by_role("alert")).to_contain_text('param "task" is empty')
    expect(page.locator("#parts .part")).to_have_count(0)
    assert not (repo / ".agentprompt" / "state.db").exists()


def test_page_without_token_is_refused(browser: Browser, page_url: str) -> None:
    tab = browser.new_page()
    answer = tab.goto(page_url.split("?")[0])
    assert answer is not None and answer.status == 403
    assert tab.content().count("forbidden") == 1
    tab.close()


def test_rebound_host_name_is_refused(browser: Browser, page_url: str) -> None:
    port = urlsplit(page_url).port
    tab = browser.new_page()
    rebound = page_url.replace(f"127.0.0.1:{port}", f"{REBOUND_HOST}:{port}")
    answer = tab.goto(rebound)
    assert answer is not None and answer.status == 403
    tab.close()


def test_files_ranked_for_the_task_can_be_added(page: Page) -> None:
    page.get_by_label("Task").fill("parseJSON throws on invalid input; make it return null.")
    page.get_by_role("button", name="Rank files for the task").click()
    ranked = page.locator("#ranked li")
    expect(ranked.first).to_contain_text("src/utils.ts")
    expect(ranked.first).to_contain_text("definition: parseJSON")
    expect(page.locator("#rank-status")).to_contain_text("most relevant to the task first")
    shot(page, "08-ranked")
    ranked.first.get_by_role("button", name="Add src/utils.ts").click()
    expect(page.get_by_role("radio", name="edit")).to_be_checked()
    expect(page.get_by_role("button", name="Remove src/utils.ts").first).to_be_visible()


def test_functions_ranked_for_the_task_show_their_lines_and_reasons(page: Page) -> None:
    page.get_by_label("Task").fill("parseJSON throws on invalid input; make it return null.")
    page.get_by_role("button", name="Rank functions for the task").click()
    ranked = page.locator("#ranked-symbols li")
    expect(ranked.first).to_contain_text("src/utils.ts:")
    expect(ranked.first).to_contain_text("parseJSON")
    expect(ranked.first).to_contain_text("name: parseJSON")
    expect(page.locator("#rank-status")).to_contain_text("functions and classes of the")


def test_drop_add_and_send_everything_again_in_a_session(
    page: Page, repo: Path, sample_reply: str
) -> None:
    page.get_by_label("Task").fill("parseJSON throws on invalid input; make it return null.")
    page.get_by_role("button", name="Add src/utils.ts").click()
    page.get_by_role("button", name="Add src/index.ts").click()
    page.get_by_role("button", name="Build prompt").click()
    expect(page.locator("#prompt-status")).to_contain_text("whole prompt")
    page.get_by_label("Paste the model's reply").fill(sample_reply)
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#reply-result")).to_contain_text("Applied")
    status = page.locator("#prompt-status")
    expect(status).to_contain_text("follow-up")
    parts = page.locator("#parts .part").first
    expect(parts).to_contain_text("scripts/report.py")
    expect(parts).not_to_contain_text("export function parseJSON")

    # Drop a file: it leaves the session (bridge status shows it) and the tree.
    page.get_by_role("button", name="Remove src/index.ts").click()
    expect(page.get_by_role("button", name="Add src/index.ts")).to_be_visible()
    found = find_session(repo)
    assert found is not None
    assert "src/index.ts" not in found[1].files and found[1].dropped == ("src/index.ts",)
    # Add it back: the next prompt sends it in full.
    page.get_by_role("button", name="Add src/index.ts").click()
    expect(page.get_by_role("button", name="Remove src/index.ts")).to_be_visible()
    expect(parts).to_contain_text("### src/index.ts")
    found = find_session(repo)
    assert found is not None and "src/index.ts" in found[1].files
    shot(page, "09-drop-add")

    # Everything again, for a new chat: the system part and every file in context.
    page.get_by_role("button", name="Send everything again").click()
    expect(status).to_contain_text("whole prompt")
    expect(parts).to_contain_text("You are a coding assistant")
    expect(parts).to_contain_text("## src/utils.ts")
    found = find_session(repo)
    assert found is not None and found[1].resend is True


def test_build_prompt_asks_before_replacing_a_session_in_progress(
    page: Page, repo: Path, sample_reply: str
) -> None:
    page.get_by_label("Task").fill("parseJSON throws on invalid input; make it return null.")
    page.get_by_role("button", name="Build prompt").click()
    expect(page.locator("#prompt-status")).to_contain_text("whole prompt")
    page.get_by_label("Paste the model's reply").fill(sample_reply)
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#reply-result")).to_contain_text("Applied")
    asked: list[str] = []

    def answer(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss() if len(asked) == 1 else dialog.accept()

    page.on("dialog", answer)
    page.get_by_label("Task").fill("Something else entirely.")
    page.get_by_role("button", name="Build prompt").click()
    expect(page.locator("#prompt-status")).to_contain_text("follow-up")
    found = find_session(repo)
    assert found is not None and found[1].rounds == 1
    page.get_by_role("button", name="Build prompt").click()
    expect(page.locator("#prompt-status")).to_contain_text("whole prompt")
    assert asked and "in progress (round 1)" in asked[0]
    found = find_session(repo)
    assert found is not None and found[1].task == "Something else entirely."
    assert found[1].rounds == 0


def test_include_exclude_and_max_tokens_shape_the_prompt_and_it_downloads_whole(
    page: Page, repo: Path
) -> None:
    page.get_by_text("Files and size").click()
    page.get_by_label("Task").fill("parseJSON throws on invalid input; make it return null.")
    # A pattern matching no file: one clear error, and no session.
    page.get_by_label("Include (gitignore patterns").fill("nothing-like-it/")
    page.get_by_role("button", name="Build prompt").click()
    expect(page.get_by_role("alert")).to_contain_text("nothing-like-it/")
    assert find_session(repo) is None

    page.get_by_label("Include (gitignore patterns").fill("src/")
    page.get_by_label("Exclude (gitignore patterns").fill("index.ts")
    page.get_by_role("button", name="Build prompt").click()
    status = page.locator("#prompt-status")
    expect(status).to_contain_text("whole prompt")
    found = find_session(repo)
    assert found is not None
    assert found[1].includes == ("src/",) and found[1].excludes == ("index.ts",)
    shown = page.locator("#parts .part").first
    expect(shown).to_contain_text("utils.ts (exports:")
    expect(shown).not_to_contain_text("index.ts (main entry")

    # A budget the summaries do not fit (the relevant code goes first): the prompt is cut,
    # and says so.
    whole = int(status.inner_text().split(" tokens")[0].rsplit(" ", 1)[-1])
    page.get_by_label("Max tokens").fill(str(whole - 100))
    page.get_by_role("button", name="Send everything again").click()
    expect(status).to_contain_text("cut to fit: ")
    found = find_session(repo)
    assert found is not None and found[1].max_tokens == whole - 100
    shot(page, "10-include-exclude-budget")

    # The whole prompt as a file to attach, unsplit.
    with page.expect_download() as info:
        page.get_by_role("button", name="Download whole prompt").click()
    download = info.value
    assert download.suggested_filename == "prompt.md"
    saved = Path(download.path()).read_text(encoding="utf-8")
    assert saved.startswith("# You are a coding assistant") and "utils.ts" in saved
    assert saved.rstrip("\n") == shown.locator(".part-text").inner_text().rstrip("\n")


def test_undo_last_round_puts_the_files_and_the_session_back(
    page: Page, repo: Path, sample_reply: str
) -> None:
    original = (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    undo = page.get_by_role("button", name="Undo last round")
    expect(undo).to_be_disabled()
    page.get_by_label("Task").fill("parseJSON throws on invalid input; make it return null.")
    page.get_by_role("button", name="Add src/utils.ts").click()
    page.get_by_role("button", name="Build prompt").click()
    expect(page.locator("#prompt-status")).to_contain_text("whole prompt")
    page.get_by_label("Paste the model's reply").fill(sample_reply)
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name="Apply").click()
    result = page.locator("#reply-result")
    expect(result).to_contain_text("Applied")
    assert "return null;" in (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    asked: list[str] = []

    def answer(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    expect(undo).to_be_enabled()
    undo.click()
    expect(result).to_contain_text("Undid round 1")
    expect(result).to_contain_text("restored src/utils.ts")
    expect(result.locator(".diff .del").first).to_be_visible()
    expect(page.locator("#prompt-status")).to_contain_text("whole prompt")
    expect(undo).to_be_disabled()
    assert asked and "Undo round 1?" in asked[0]
    assert (repo / "src" / "utils.ts").read_text(encoding="utf-8") == original
    found = find_session(repo)
    assert found is not None and found[1].rounds == 0
    shot(page, "10-round-undone")


def test_the_budget_select_offers_the_default_and_the_chat_presets(page: Page, repo: Path) -> None:
    page.get_by_text("Files and size").click()
    chat = page.get_by_label("Budget (one paste into this chat)")
    expect(chat.locator("option").first).to_have_text("the default (25000 tokens)")
    expect(chat.locator("option[value=claude]")).to_have_text("claude (50000 tokens)")
    expect(chat.locator("option").last).to_have_text("none: the whole repository")
    page.get_by_label("Task").fill("parseJSON throws on invalid input; make it return null.")
    chat.select_option("small")
    page.get_by_role("button", name="Build prompt").click()
    expect(page.locator("#prompt-status")).to_contain_text("whole prompt")
    found = find_session(repo)
    assert found is not None and found[1].max_tokens == 6_000
    expect(page.get_by_label("Max tokens")).to_have_attribute("placeholder", "this session: 6000")
    shot(page, "11-budget-presets")

    chat.select_option("none")
    with page.expect_response(lambda answer: "/rpc" in answer.url):
        page.get_by_role("button", name="Send everything again").click()
    found = find_session(repo)
    assert found is not None and found[1].max_tokens is None


def test_an_answer_then_a_note_and_a_commands_output_make_the_next_prompt(
    page: Page, repo: Path
) -> None:
    page.get_by_label("Task").fill("parseJSON throws on invalid input; make it return null.")
    page.get_by_role("button", name="Add src/utils.ts").click()
    page.get_by_role("button", name="Build prompt").click()
    expect(page.locator("#prompt-status")).to_contain_text("whole prompt")

    # A reply with nothing to apply is the model's answer, recorded in the session.
    page.get_by_label("Paste the model's reply").fill("Should it also log the error?")
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name="Apply").click()
    result = page.locator("#reply-result")
    expect(result).to_contain_text("The model's answer (nothing to apply)")
    expect(result).to_contain_text("Should it also log the error?")
    expect(result).to_contain_text("Recorded in the session")
    found = find_session(repo)
    assert found is not None and found[1].answer == "Should it also log the error?"

    # The user answers with a note: the next prompt holds it.
    page.get_by_label("Note for the model").fill("No logging, just return null.")
    page.get_by_role("button", name="Add note").click()
    parts = page.locator("#parts .part").first
    expect(parts).to_contain_text("## Note from the user")
    expect(parts).to_contain_text("No logging, just return null.")

    # A command's output and exit status go in too.
    command = "python3 -c \"import sys; print('1 failed'); sys.exit(1)\""
    page.get_by_label("Command to run in the repository").fill(command)
    page.get_by_role("button", name="Run").click()
    expect(page.locator("#input-status")).to_contain_text("exit status 1")
    expect(parts).to_contain_text("Exit status 1.")
    expect(parts).to_contain_text("1 failed")
    shot(page, "12-note-and-run")

    # A command that cannot be started is a clear error, and the session is unchanged.
    before = find_session(repo)
    page.get_by_label("Command to run in the repository").fill("no-such-program-here")
    page.get_by_role("button", name="Run").click()
    expect(page.locator("#error")).to_contain_text("cannot be started")
    assert find_session(repo) == before
