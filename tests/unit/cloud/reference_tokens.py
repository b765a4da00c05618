#!/usr/bin/env python3
"""Prints the MSK IAM and RDS IAM tokens that AWS's own libraries make for fixed credentials,
regions and times: the expected strings of tests/unit/cloud/{msk,rds}_token_test.cc.

Regenerate them (no network or AWS account needed):
  python3 -m venv /tmp/awsref
  /tmp/awsref/bin/pip install aws-msk-iam-sasl-signer-python==1.0.2 botocore
  /tmp/awsref/bin/python tests/unit/cloud/reference_tokens.py
and paste the printed values into the tests. The MSK token embeds the signer's User-Agent
(aws-msk-iam-sasl-signer-python/<version>), which the tests pass to outboxd's maker too.

Time is frozen by replacing botocore.auth.get_current_datetime, the one clock SigV4 reads in
botocore (the MSK signer signs through botocore's SigV4QueryAuth, so the same patch fixes
both).
"""
import datetime
import os

os.environ["AWS_CONFIG_FILE"] = "/dev/null"  # No profile or region from this machine.
os.environ["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"

import botocore.auth  # noqa: E402
import botocore.session  # noqa: E402
from botocore.credentials import Credentials  # noqa: E402
from aws_msk_iam_sasl_signer import MSKAuthTokenProvider  # noqa: E402

ACCESS_KEY = "AKIDEXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
SESSION_TOKEN = "IQoJb3JpZ2luX2VjEXAMPLE/token+with=specials"
FROZEN = datetime.datetime(2026, 12, 7, 18, 0, 0)  # 20261207T180000Z


def freeze(when):
    botocore.auth.get_current_datetime = lambda *args, **kwargs: when


def msk(region, token):
    credentials = Credentials(ACCESS_KEY, SECRET_KEY, token)
    # The module's private constructor is what every public generate_* function ends in.
    make = getattr(MSKAuthTokenProvider, "__construct_auth_token")
    return make(region, credentials)


def rds(host, port, user, region, token):
    session = botocore.session.Session()
    client = session.create_client("rds", region_name=region, aws_access_key_id=ACCESS_KEY,
                                   aws_secret_access_key=SECRET_KEY, aws_session_token=token)
    return client.generate_db_auth_token(host, port, user, Region=region)


def main():
    freeze(FROZEN)
    print("user agent:", MSKAuthTokenProvider.__get_user_agent__())
    for region, token in [("us-east-1", None), ("eu-west-1", SESSION_TOKEN)]:
        value, expiry_ms = msk(region, token)
        print(f"msk {region} token={bool(token)} expiry_ms={expiry_ms}\n  {value}")
    for host, port, user, region, token in [
        ("mydb.abc123.us-east-1.rds.amazonaws.com", 5432, "outboxd", "us-east-1", None),
        ("aurora.cluster-xyz.eu-central-1.rds.amazonaws.com", 5433, "relay user@x",
         "eu-central-1", SESSION_TOKEN),
    ]:
        print(f"rds {host}:{port} {user!r} token={bool(token)}\n  "
              f"{rds(host, port, user, region, token)}")


if __name__ == "__main__":
    main()
