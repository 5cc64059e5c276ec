"""`ask`, the interactive terminal client, driven through a pseudo-terminal (pexpect) against
the `provision` example server over stdio.

The binaries are built once per session (`cargo build -p roundtrip-examples --bin ask --bin
provision`) unless ASK_BIN and PROVISION_BIN name them.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pexpect
import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def bins() -> tuple[str, str]:
    ask, provision = os.environ.get("ASK_BIN"), os.environ.get("PROVISION_BIN")
    if ask and provision:
        return ask, provision
    subprocess.run(
        ["cargo", "build", "--quiet", "-p", "roundtrip-examples", "--bin", "ask", "--bin", "provision"],
        cwd=REPO,
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug"
    return str(target / "ask"), str(target / "provision")


def spawn(bins: tuple[str, str], *args: str) -> pexpect.spawn:
    ask, provision = bins
    child = pexpect.spawn(
        ask, [*args, "--", provision, "--stdio"], cwd=str(REPO), encoding="utf-8", timeout=20, echo=False
    )
    return child


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_wizard_asks_the_name_then_the_age(bins):
    child = spawn(bins, "wizard")
    child.expect_exact("What is your name?")
    child.expect_exact("name: ")
    child.sendline("Ada")
    child.expect_exact("How old are you, Ada?")
    child.expect_exact("age (integer): ")
    child.sendline("thirty-six")  # not an integer: asked again
    child.expect_exact("is not an integer")
    child.expect_exact("age (integer): ")
    child.sendline("36")
    child.expect_exact("Hello Ada, you are 36.")
    assert finish(child) == 0


def test_declining_the_confirmation_keeps_the_file(bins):
    child = spawn(bins, "confirm_delete", "path=/tmp/x")
    child.expect_exact("Really delete /tmp/x?")
    child.expect_exact("confirm (y/n): ")
    child.sendline(":decline")
    child.expect_exact("Kept /tmp/x (declined).")
    assert finish(child) == 0


def test_ctrl_d_cancels(bins):
    child = spawn(bins, "confirm_delete", "path=/tmp/x")
    child.expect_exact("confirm (y/n): ")
    child.sendeof()
    child.expect_exact("Kept /tmp/x (cancelled).")
    assert finish(child) == 0


def test_a_missing_argument_is_asked_and_the_tool_can_be_chosen_from_the_list(bins):
    child = spawn(bins)
    child.expect_exact("confirm_delete")
    child.expect_exact("Which tool?")
    child.sendline("3")
    child.expect_exact("path: ")
    child.sendline("/tmp/y")
    child.expect_exact("confirm (y/n): ")
    child.sendline("y")
    child.expect_exact("Deleted /tmp/y.")
    assert finish(child) == 0


def test_sampling_asks_for_the_model_reply_and_roots_offer_the_current_directory(bins):
    child = spawn(bins, "summarize", "text=a long text")
    child.expect_exact("Summarize in one sentence: a long text")
    child.expect_exact("Type the model's reply: ")
    child.sendline("Short.")
    child.expect_exact("Summary: Short.")
    assert finish(child) == 0

    child = spawn(bins, "workspace")
    child.expect_exact(f"Share file://{REPO} (y/n) [y]: ")
    child.sendline("")
    child.expect_exact(f"Roots: file://{REPO}")
    assert finish(child) == 0


def test_answers_file_answers_without_the_terminal(bins, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"region": "eu-west"}))
    ask, provision = bins
    done = subprocess.run(
        [ask, "--answers", str(answers), "provision", "name=orders", "--", provision, "--stdio"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Provisioned 'orders' in eu-west."


def test_a_missing_answer_fails_with_a_clear_message(bins, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text("{}")
    ask, provision = bins
    done = subprocess.run(
        [ask, "--answers", str(answers), "provision", "name=orders", "--", provision, "--stdio"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert "no answer for `region`" in done.stderr


def test_skills_are_listed_and_one_is_shown_checked_against_its_listing(bins):
    ask, _ = bins
    subprocess.run(["cargo", "build", "--quiet", "-p", "roundtrip-examples", "--bin", "conformance"], cwd=REPO, check=True)
    server = str(Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug" / "conformance")
    listed = subprocess.run([ask, "--skills", "--", server, "--stdio"], capture_output=True, text=True, timeout=30)
    assert listed.returncode == 0, listed.stderr
    assert "pdf-processing" in listed.stdout and "skill://release-notes/SKILL.md" in listed.stdout
    shown = subprocess.run(
        [ask, "--skill", "pdf-processing", "--", server, "--stdio"], capture_output=True, text=True, timeout=30
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("---\nname: pdf-processing\n"), shown.stdout
    assert "skill://pdf-processing/references/FORMS.md (208 bytes, sha256:" in shown.stdout
    missing = subprocess.run([ask, "--skill", "nope", "--", server, "--stdio"], capture_output=True, text=True, timeout=30)
    assert missing.returncode == 1 and "has no skill `nope`" in missing.stderr
