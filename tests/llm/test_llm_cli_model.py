"""The shared model flags, the model they choose, and ``select`` asking a real client
through them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from agentprompt.cli._model import model_options
from agentprompt.cli.main import main
from agentprompt.llm import ModelRequest, ModelSpec, ScriptFileModel, model_from_environment
from agentprompt.messages import Message

from .loopback import LoopbackServer, json_answer


@click.command()
@model_options
@click.option("--task", default="t")
def probe(task: str, model_opts: ModelSpec) -> None:
    """Print what the command received."""
    click.echo(f"{task}|{model_opts}")


def test_model_options_hands_the_command_one_value() -> None:
    result = CliRunner().invoke(
        probe,
        [
            "--model",
            "openai:m",
            "--base-url",
            "http://h/v1",
            "--api-key-env",
            "K",
            "--timeout",
            "9",
        ],
    )
    assert result.exit_code == 0, result.output
    expected = ModelSpec(model="openai:m", base_url="http://h/v1", api_key_env="K", timeout=9.0)
    assert result.output == f"t|{expected}\n"


def test_model_options_default_to_none() -> None:
    result = CliRunner().invoke(probe, [])
    assert result.output == f"t|{ModelSpec()}\n"


def test_model_options_are_listed_in_help() -> None:
    result = CliRunner().invoke(probe, ["--help"])
    for flag in ("--model", "--base-url", "--api-key-env", "--timeout"):
        assert flag in result.output


def test_a_timeout_must_be_positive() -> None:
    result = CliRunner().invoke(probe, ["--timeout", "0"])
    assert result.exit_code == 2


def test_the_chosen_model_uses_the_flags_and_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("K", "sk-k")
    options = ModelSpec(model="openai:m", base_url="http://h/v1", api_key_env="K", timeout=3)
    config = model_from_environment(options, os.environ).config
    assert (config.base_url, config.api_key, config.timeout) == ("http://h/v1", "sk-k", 3)


def test_the_chosen_model_has_a_working_client(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text('["hi"]')
    client = model_from_environment(ModelSpec(model=f"script:{script}"), os.environ).client
    assert isinstance(client, ScriptFileModel)
    assert client.complete(ModelRequest(messages=(Message(role="user", content="x"),))).text == "hi"


@pytest.mark.usefixtures("allow_requests")
def test_select_asks_an_openai_compatible_server(
    server: LoopbackServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "app.py").write_text("print('hi')\n")
    answer = json.dumps({"done": True, "files": ["app.py"], "reason": "the only file"})
    server.add(
        json_answer(
            {
                "id": "c",
                "object": "chat.completion",
                "created": 1,
                "model": "local",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer},
                        "finish_reason": "stop",
                    }
                ],
            }
        )
    )
    monkeypatch.setenv("LOCAL_KEY", "sk-local")
    args = ["select", "--task", "Fix", "--root", str(tmp_path), "--no-git", "--json"]
    flags = ["--base-url", f"{server.url}/v1", "--api-key-env", "LOCAL_KEY"]
    main([*args, *flags, "--model", "openai:local-model"])
    data = json.loads(capsys.readouterr().out)
    assert [s["path"] for s in data["selected"]] == ["app.py"]
    (sent,) = server.requests
    assert sent.body["model"] == "local-model"
    assert sent.headers["authorization"] == "Bearer sk-local"


@pytest.mark.usefixtures("allow_requests")
def test_select_without_a_key_for_the_providers_api_exits_2_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["select", "--task", "Fix", "--root", str(tmp_path), "--model", "anthropic:c"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "ANTHROPIC_API_KEY" in err and "--api-key-env NAME" in err
    assert "Traceback" not in err
