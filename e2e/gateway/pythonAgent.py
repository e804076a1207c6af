"""An agent written with the official Python MCP SDK: lists its tools through the gateway and calls one.

Usage: python pythonAgent.py URL CREDENTIAL TOOL JSON_ARGS
Prints one JSON line: {"tools": [...], "result": {...}}.
"""
import asyncio
import json
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main(url: str, credential: str, tool: str, args: str) -> None:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {credential}"})
    async with Client(streamable_http_client(url, http_client=http)) as client:
        tools = await client.list_tools()
        result = await client.call_tool(tool, json.loads(args))
        print(json.dumps({"tools": sorted(t.name for t in tools.tools), "result": result.model_dump(mode="json", exclude_none=True)}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
