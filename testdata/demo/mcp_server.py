#!/usr/bin/env python3
"""A small MCP server on stdio, for toonkit mcp proxy's examples.

Its tools answer as servers commonly do: list_orders returns the orders as
JSON text (json.dumps, indented), get_order one order, and find_order an
error result for an order that is not there.
"""
import json
import sys

ORDERS = [
    {"id": 1001, "customer": "Ada", "status": "shipped", "total": 42.5},
    {"id": 1002, "customer": "Grace", "status": "pending", "total": 17.0},
    {"id": 1003, "customer": "Linus", "status": "shipped", "total": 99.99},
    {"id": 1004, "customer": "Barbara", "status": "cancelled", "total": 5.25},
]

TOOLS = [
    {"name": "list_orders", "description": "All the orders.", "inputSchema": {"type": "object"}},
    {"name": "find_order", "description": "One order by its id.",
     "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
]


def answer(method, params):
    if method == "initialize":
        return {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "orders", "version": "1.0.0"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        args = params.get("arguments") or {}
        if params["name"] == "list_orders":
            return {"content": [{"type": "text", "text": json.dumps({"orders": ORDERS}, indent=2)}]}
        order = next((o for o in ORDERS if o["id"] == args.get("id")), None)
        if order is None:
            return {"content": [{"type": "text", "text": json.dumps({"error": "no such order", "id": args.get("id")})}], "isError": True}
        return {"content": [{"type": "text", "text": json.dumps(order)}], "structuredContent": order}
    return {}


for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg and "method" in msg:
        out = {"jsonrpc": "2.0", "id": msg["id"], "result": answer(msg["method"], msg.get("params") or {})}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
