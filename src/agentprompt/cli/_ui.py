"""``agentprompt ui``: serve the local web page for a repository on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import click

from agentprompt.cli._options import check_root, make_root_option, port_option
from agentprompt.cli._output import err_console
from agentprompt.errors import UsageError

__all__ = ["ui_command"]


@click.command("ui")
@make_root_option("The repository the page works on.")
@port_option("The port on 127.0.0.1 (0: a free one).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
def ui_command(root: Path, port: int, open_browser: bool) -> None:
    """Serve the prompt page on 127.0.0.1; its URL (with a secret token) is printed."""
    check_root(root)
    try:
        from agentprompt.web.server import prepare, serve
    except ImportError as exc:
        raise UsageError(
            f"the web page needs the ui extra ({exc.name} is missing); install agentprompt[ui]"
        ) from None
    page = prepare(port)

    def announce(url: str) -> None:
        click.echo(url)
        err_console.print(
            "Serving the page for this repository; only this URL (with its token) opens it. "
            "Stop with Ctrl-C.",
            markup=False,
            highlight=False,
        )

    serve(root, page, open_browser=open_browser, announce=announce)
