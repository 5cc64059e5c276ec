"""A server built with the official Python SDK (`mcp` 2.3.0, `MCPServer`) whose tool asks
twice, in two rounds: first the user's name, then (knowing the name) their favourite colour.

The second question depends on the first answer through a resolver dependency
(`Resolve(ask_color)` takes `Resolve(ask_name)`), so a 2026-07-28 client sees two
`InputRequiredResult` rounds; a 2025-era client gets two `elicitation/create` requests.

    python two_rounds.py stdio
    python two_rounds.py http PORT      # streamable HTTP at http://127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, MCPServer, Resolve


class Name(BaseModel):
    name: str


class Color(BaseModel):
    color: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def ask_color(name: Annotated[Name, Resolve(ask_name)]) -> Elicit[Color]:
    return Elicit(f"What is your favourite colour, {name.name}?", Color)


mcp = MCPServer("two-rounds", version="1.0.0")


@mcp.tool()
def greet(
    name: Annotated[Name, Resolve(ask_name)],
    color: Annotated[Color, Resolve(ask_color)],
) -> str:
    """Greet the user: asks their name, then their favourite colour."""
    return f"Hello {name.name}, you like {color.color}."


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "http":
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run("stdio")
