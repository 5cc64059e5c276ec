"""A 2025-era server built with the official Python SDK 1.x (`mcp` 1.30.0, `FastMCP`): its tool
asks twice *inside* the call (`elicitation/create`), first the user's name, then their
favourite colour. The gateway test fronts it for a 2026-07-28 client, who gets the two
questions as `input_required` rounds.

    .venv-mcp1/bin/python legacy_rounds.py      # stdio
"""

from __future__ import annotations

from pydantic import BaseModel

from mcp.server.fastmcp import Context, FastMCP


class Name(BaseModel):
    name: str


class Color(BaseModel):
    color: str


mcp = FastMCP("legacy-rounds")


@mcp.tool()
async def greet(ctx: Context) -> str:
    """Greet the user: asks their name, then their favourite colour, inside the call."""
    name = await ctx.elicit("What is your name?", Name)
    if name.action != "accept":
        return "No name given."
    color = await ctx.elicit(f"What is your favourite colour, {name.data.name}?", Color)
    if color.action != "accept":
        return f"Hello {name.data.name}."
    return f"Hello {name.data.name}, you like {color.data.color}."


if __name__ == "__main__":
    mcp.run("stdio")
