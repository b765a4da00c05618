#!/usr/bin/env python3
"""registry_tap.py UPSTREAM PORT_FILE LOG — one side's way to the shared schema registry.

Forwards every request to UPSTREAM (http://host:port of the real registry) unchanged and
answers with its reply, and appends each schema the side registers (POST
/subjects/<subject>/versions) to LOG as {"subject", "schema"} JSON lines. The registry answers
a schema it deems the same as a registered one with that one's id (Apicurio ignores a field's
"default", for one), so only the text each side sent shows such a difference. Listens on a
free loopback port, written to PORT_FILE once it listens; runs until killed.
"""
import http.client
import http.server
import json
import os
import re
import sys
import threading
import urllib.parse

REGISTER = re.compile(r"/subjects/([^/?]+)/versions(\?.*)?$")
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


def main():
    upstream = urllib.parse.urlsplit(sys.argv[1])
    port_file, log_path = sys.argv[2], sys.argv[3]
    lock = threading.Lock()

    class Tap(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def forward(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=30)
            conn.request(self.command, self.path, body=body, headers=headers)
            reply = conn.getresponse()
            data = reply.read()
            self.send_response(reply.status, reply.reason)
            for k, v in reply.getheaders():
                if k.lower() not in HOP_BY_HOP:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            conn.close()
            m = REGISTER.search(self.path)
            if self.command == "POST" and m and body:
                entry = {"subject": urllib.parse.unquote(m.group(1)),
                         "schema": json.loads(body).get("schema"), "status": reply.status}
                with lock, open(log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")

        do_GET = do_POST = do_PUT = do_DELETE = forward

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tap)
    with open(port_file + ".tmp", "w", encoding="utf-8") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
