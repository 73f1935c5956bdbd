"""boto3 against the SQS endpoint: create, send (with attributes and a batch), receive, delete.

Run by test/sqs/boto3.test.ts with the endpoint and a key in the environment; prints one JSON
object with what came back, and which protocol the installed botocore speaks.
"""
import json
import os
import sys

import boto3
import botocore

client = boto3.client(
    "sqs",
    endpoint_url=os.environ["SQS_ENDPOINT"],
    region_name="us-east-1",
    aws_access_key_id=os.environ["SQS_KEY_ID"],
    aws_secret_access_key=os.environ["SQS_SECRET"],
)
name = sys.argv[1]
url = client.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "40"})["QueueUrl"]
sent = client.send_message(
    QueueUrl=url,
    MessageBody="hello from boto3\r\nline two",
    MessageAttributes={
        "City": {"DataType": "String", "StringValue": "Any City"},
        "Bytes": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff"},
    },
)
batch = client.send_message_batch(
    QueueUrl=url,
    Entries=[{"Id": "one", "MessageBody": "b1"}, {"Id": "bad", "MessageBody": ""}],
)
received = []
for _ in range(5):
    reply = client.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"], AttributeNames=["All"], WaitTimeSeconds=2
    )
    received.extend(reply.get("Messages", []))
    if len(received) >= 2:
        break
deleted = client.delete_message_batch(
    QueueUrl=url, Entries=[{"Id": f"d{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(received)]
)
attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
try:
    client.get_queue_url(QueueName=name + "-missing")
    missing = None
except client.exceptions.QueueDoesNotExist as error:
    missing = error.response["Error"]["Code"]
client.delete_queue(QueueUrl=url)
print(
    json.dumps(
        {
            "protocol": client.meta.service_model.protocol,
            "botocore": botocore.__version__,
            "url": url,
            "sent": {k: sent.get(k) for k in ("MessageId", "MD5OfMessageBody", "MD5OfMessageAttributes")},
            "batch": {
                "successful": [e["Id"] for e in batch.get("Successful", [])],
                "failed": [[e["Id"], e["Code"]] for e in batch.get("Failed", [])],
            },
            "received": sorted(
                [
                    {
                        "body": m["Body"],
                        "md5": m["MD5OfBody"],
                        "attributes": {
                            k: v.get("StringValue") or list(v.get("BinaryValue", b""))
                            for k, v in m.get("MessageAttributes", {}).items()
                        },
                        "md5OfAttributes": m.get("MD5OfMessageAttributes"),
                        "receiveCount": m["Attributes"]["ApproximateReceiveCount"],
                    }
                    for m in received
                ],
                key=lambda m: m["body"],
            ),
            "deleted": sorted(e["Id"] for e in deleted.get("Successful", [])),
            "visibility": attributes["VisibilityTimeout"],
            "missing": missing,
        }
    )
)
