#!/usr/bin/env python3
"""A fake ECS / EKS Pod Identity credentials agent for tests/broker_iam/run.

Usage: fake_container_credentials.py PORT_FILE STATE_DIR KEY_ID SECRET LIFETIME_S TOKEN
Serves GET /creds on 127.0.0.1 (port written to PORT_FILE) to requests whose Authorization
header is TOKEN: the fixed test key and secret with a new session token each time, expiring
LIFETIME_S seconds later, so a running outboxd keeps refreshing. Each answer is counted in
STATE_DIR/fetches. While STATE_DIR/revoked exists it answers 403, as an agent does for a role
that was taken away.
"""
import datetime
import http.server
import json
import os
import sys

PORT_FILE, STATE_DIR, KEY_ID, SECRET, LIFETIME, TOKEN = sys.argv[1:7]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path != "/creds" or self.headers.get("Authorization") != TOKEN:
            self.send_error(404 if self.path != "/creds" else 401)
            return
        if os.path.exists(os.path.join(STATE_DIR, "revoked")):
            self.send_error(403)
            return
        fetches_path = os.path.join(STATE_DIR, "fetches")
        fetches = int(open(fetches_path).read()) + 1 if os.path.exists(fetches_path) else 1
        with open(fetches_path, "w") as out:
            out.write(str(fetches))
        expiration = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(
            seconds=int(LIFETIME))
        body = json.dumps({"AccessKeyId": KEY_ID, "SecretAccessKey": SECRET,
                           "Token": f"session-{fetches}",
                           "Expiration": expiration.strftime("%Y-%m-%dT%H:%M:%SZ")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE, "w") as out:
    out.write(str(server.server_address[1]))
server.serve_forever()
