"""An OTLP/HTTP receiver for the tests: decodes every trace export (protobuf, gzip or not) with
the official `opentelemetry-proto` package and keeps its spans; answers metric exports."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}


def _value(v) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in v.kvlist_value.values}
    return getattr(v, kind) if kind else None


class Receiver:
    """Listens on 127.0.0.1:<port> until closed; `spans` holds what arrived."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.metric_exports = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding", "").lower() == "gzip":
                    body = gzip.decompress(body)
                if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/x-protobuf":
                    self.send_error(415)
                    return
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest()
                    request.ParseFromString(body)
                    receiver._keep(request)
                    answer = ExportTraceServiceResponse().SerializeToString()
                elif self.path == "/v1/metrics":
                    request = ExportMetricsServiceRequest()
                    request.ParseFromString(body)
                    with receiver.lock:
                        receiver.metric_exports += 1
                    answer = ExportMetricsServiceResponse().SerializeToString()
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _keep(self, request: ExportTraceServiceRequest) -> None:
        for resource_spans in request.resource_spans:
            resource = {kv.key: _value(kv.value) for kv in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for s in scope_spans.spans:
                    span = {
                        "name": s.name,
                        "kind": KINDS[s.kind],
                        "trace_id": s.trace_id.hex(),
                        "span_id": s.span_id.hex(),
                        "parent_span_id": s.parent_span_id.hex(),
                        "status": s.status.code,
                        "attributes": {kv.key: _value(kv.value) for kv in s.attributes},
                        "resource": resource,
                    }
                    with self.lock:
                        self.spans.append(span)

    def in_trace(self, trace_id: str) -> list[dict[str, Any]]:
        with self.lock:
            return [s for s in self.spans if s["trace_id"] == trace_id]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class GrpcReceiver(Receiver):
    """The same, over OTLP/gRPC (`grpcio`, with the services of `opentelemetry-proto`)."""

    def __init__(self) -> None:  # noqa: D107 (no HTTP server: a gRPC one)
        from concurrent import futures

        import grpc
        from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc

        self.spans = []
        self.metric_exports = 0
        self.lock = threading.Lock()
        receiver = self

        class Traces(trace_service_pb2_grpc.TraceServiceServicer):
            def Export(self, request, context):  # noqa: N802 (the service's name)
                receiver._keep(request)
                return ExportTraceServiceResponse()

        class Metrics(metrics_service_pb2_grpc.MetricsServiceServicer):
            def Export(self, request, context):  # noqa: N802
                with receiver.lock:
                    receiver.metric_exports += 1
                return ExportMetricsServiceResponse()

        self.grpc = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Traces(), self.grpc)
        metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(Metrics(), self.grpc)
        self.port = self.grpc.add_insecure_port("127.0.0.1:0")
        self.url = f"http://127.0.0.1:{self.port}"
        self.grpc.start()

    def close(self) -> None:
        self.grpc.stop(grace=None)
