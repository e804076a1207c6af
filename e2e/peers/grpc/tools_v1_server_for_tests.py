"""A tools.v1 ToolServer written for Tooldeck's tests from the contract in
main/grpc/proto/tools/v1/tool_server.proto (ListTools / ExecuteTool, JSON arguments and results,
`error` on failure, versions with compatible_versions). It serves the .proto Tooldeck ships, so both sides share one
contract. Tools:

  forecast       version 2.1.0, also accepts 2.0.0    {city, days?} -> {city, days, forecast[]}
  convert_units  version 1.0.0                        {value, from, to} (km <-> mi)
  fail           version 1.0.0                        always answers error "boom"
  status         version 1.0.0                        {code, message?}: ends the call with that gRPC status
  deadline       version 1.0.0                        {} -> {remaining_ms}: the deadline the call carried
  sleep          version 1.0.0                        {ms} -> {slept_ms}
  broken_schema  version 0.1.0                        its schema string is not JSON (unusable)

A call whose version is neither the tool's nor one of its compatible_versions gets
`error: "incompatible version"`. With --token T every call needs metadata `authorization: Bearer T`
(UNAUTHENTICATED otherwise). --cert/--key serve TLS; --client-ca requires client certificates (mTLS).
"""

import argparse
import json
import os
import time
from concurrent import futures

import grpc

from grpc_peer_common import add_port, add_tls_arguments, compile_protos, serve_until_stdin_closes

PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "main", "grpc", "proto")


def tool(name, description, schema, version, compatible=()):
    return {"name": name, "description": description, "schema": schema if isinstance(schema, str) else json.dumps(schema), "version": version, "compatible_versions": list(compatible)}


TOOLS = [
    tool(
        "forecast",
        "Weather forecast for a city.",
        {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}, "days": {"type": "integer", "minimum": 1, "maximum": 7}}, "required": ["city"]},
        "2.1.0",
        ["2.0.0"],
    ),
    tool(
        "convert_units",
        "Converts a distance between km and mi.",
        {"type": "object", "properties": {"value": {"type": "number"}, "from": {"enum": ["km", "mi"]}, "to": {"enum": ["km", "mi"]}}, "required": ["value", "from", "to"]},
        "1.0.0",
    ),
    tool("fail", "Always fails.", {"type": "object"}, "1.0.0"),
    tool("status", "Ends the call with the gRPC status it is given.", {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}, "required": ["code"]}, "1.0.0"),
    tool("deadline", "Reports the deadline the call carried.", {"type": "object"}, "1.0.0"),
    tool("sleep", "Sleeps.", {"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}, "required": ["ms"]}, "1.0.0"),
    tool("broken_schema", "Its schema is not JSON.", "{not json", "0.1.0"),
]


def run(name, args, context):
    if name == "forecast":
        days = args.get("days", 3)
        return {"city": args["city"], "days": days, "forecast": [{"day": i + 1, "high_c": 20 + i, "sky": "clear"} for i in range(days)]}
    if name == "convert_units":
        factor = 0.621371 if (args["from"], args["to"]) == ("km", "mi") else 1.609344 if (args["from"], args["to"]) == ("mi", "km") else 1.0
        return {"value": round(args["value"] * factor, 4), "unit": args["to"]}
    if name == "fail":
        raise RuntimeError("boom")
    if name == "status":
        context.abort(getattr(grpc.StatusCode, args["code"]), args.get("message", args["code"].lower()))
    if name == "deadline":
        remaining = context.time_remaining()
        return {"remaining_ms": None if remaining is None else int(remaining * 1000)}
    if name == "sleep":
        time.sleep(args["ms"] / 1000)
        return {"slept_ms": args["ms"]}
    raise KeyError(name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token", help="require authorization: Bearer <token>")
    add_tls_arguments(parser)
    args = parser.parse_args()
    compile_protos(PROTO_DIR, "tools/v1/tool_server.proto")
    from tools.v1 import tool_server_pb2 as pb
    from tools.v1 import tool_server_pb2_grpc as pb_grpc

    by_name = {t["name"]: t for t in TOOLS}

    def authorize(context):
        if not args.token:
            return
        sent = dict(context.invocation_metadata()).get("authorization")
        if sent != f"Bearer {args.token}":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")

    class ToolServer(pb_grpc.ToolServerServicer):
        def ListTools(self, request, context):
            authorize(context)
            return pb.ListToolsResponse(tools=[pb.ToolDefinition(**t) for t in TOOLS])

        def ExecuteTool(self, request, context):
            authorize(context)
            definition = by_name.get(request.tool_name)
            if definition is None:
                context.abort(grpc.StatusCode.NOT_FOUND, f"no tool named {request.tool_name}")
            # The contract's version negotiation: the tool's version, or one it lists as compatible.
            if request.version and request.version != definition["version"] and request.version not in definition["compatible_versions"]:
                return pb.ExecuteToolResponse(error="incompatible version")
            try:
                arguments = json.loads(request.arguments or b"{}")
            except ValueError as error:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"arguments are not JSON: {error}")
            try:
                result = run(request.tool_name, arguments, context)
            except KeyError as error:
                return pb.ExecuteToolResponse(error=f"missing argument {error}")
            except RuntimeError as error:
                return pb.ExecuteToolResponse(error=str(error))
            return pb.ExecuteToolResponse(result=json.dumps(result).encode())

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_ToolServerServicer_to_server(ToolServer(), server)
    port = add_port(server, args)
    serve_until_stdin_closes(server, port)


if __name__ == "__main__":
    main()
