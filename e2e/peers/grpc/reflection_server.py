"""A gRPC server built from the well-known Python packages — grpcio, grpcio-health-checking (the real
grpc.health.v1.Health service: Check, and the server-streaming Watch) and grpcio-reflection — plus
explorer.v1.Explorer (explorer_for_tests.proto), written for Tooldeck's tests to cover every shape a
request form must render. --no-reflection serves the same services without reflection.
--cert/--key serve TLS; --client-ca requires client certificates (mTLS)."""

import argparse
import os
import time
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from grpc_peer_common import add_port, add_tls_arguments, compile_protos, serve_until_stdin_closes

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-reflection", action="store_true")
    add_tls_arguments(parser)
    args = parser.parse_args()
    compile_protos(HERE, "explorer_for_tests.proto")
    import explorer_for_tests_pb2 as pb
    import explorer_for_tests_pb2_grpc as pb_grpc

    class Explorer(pb_grpc.ExplorerServicer):
        def Echo(self, request, context):
            context.set_trailing_metadata((("x-echo-count", str(max(request.times, 1))),))
            return pb.EchoReply(request=request, summary=" ".join([request.text] * max(request.times, 1)))

        def Count(self, request, context):
            for n in range(1, request.to + 1):
                if not context.is_active():
                    return
                yield pb.CountReply(n=n)
                time.sleep(request.interval_ms / 1000)

        def Fail(self, request, context):
            context.abort(getattr(grpc.StatusCode, request.code or "INTERNAL"), request.message or "failed on purpose")

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_ExplorerServicer_to_server(Explorer(), server)
    health_servicer = health.HealthServicer()
    health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_servicer.set("explorer.v1.Explorer", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if not args.no_reflection:
        names = (pb.DESCRIPTOR.services_by_name["Explorer"].full_name, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME)
        reflection.enable_server_reflection(names, server)
    port = add_port(server, args)
    serve_until_stdin_closes(server, port)


if __name__ == "__main__":
    main()
