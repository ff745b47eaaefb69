#!/usr/bin/env python3
"""Prints the OpenTDF KAS protobuf test vectors, made with the protobuf classes otdf-python ships
(`otdf_python_proto.kas.kas_pb2`, the python protobuf runtime): one JSON object on stdout whose
members are the wire bytes of each message (lowercase hex) and `rewrapResponseJSON`, the text
`json_format` writes for the rewrap response. The KAS tests (OpenTDFProtobufCodecTests,
OpenTDFProtoJSONTests) run it at test time and compare the KAS codec with what it prints, so the
vectors' provenance is this script and the venv's otdf-python, never a pasted constant.

    .venv/bin/python Tools/python/opentdf_proto_vectors.py
"""
import json
import sys

try:
    from google.protobuf import json_format
    from otdf_python_proto.kas import kas_pb2
except ImportError as error:
    sys.exit(f"opentdf_proto_vectors: otdf-python is not installed in {sys.executable} ({error}): run make deps")


def rewrap_response():
    """Two key access objects under one policy: one permitted with a wrapped key, one refused."""
    response = kas_pb2.RewrapResponse(entity_wrapped_key=bytes([1, 2]), session_public_key="PEM",
                                      schema_version="1.0.0")
    policy = response.responses.add(policy_id="policy")
    policy.results.add(key_access_object_id="kao-0", status="permit", kas_wrapped_key=bytes([0xFF, 0x00, 0x10]))
    policy.results.add(key_access_object_id="kao-1", status="fail", error="forbidden")
    return response


def main():
    response = rewrap_response()
    vectors = {
        "rewrapResponse": response.SerializeToString(deterministic=True).hex(),
        "publicKeyRequest": kas_pb2.PublicKeyRequest(algorithm="ec:secp256r1", fmt="pkcs8", v="2")
        .SerializeToString(deterministic=True).hex(),
        "publicKeyResponse": kas_pb2.PublicKeyResponse(public_key="-----BEGIN PUBLIC KEY-----\n", kid="k1")
        .SerializeToString(deterministic=True).hex(),
        "rewrapRequest": kas_pb2.RewrapRequest(signed_request_token="a.b.c").SerializeToString(deterministic=True).hex(),
        "rewrapResponseJSON": json_format.MessageToJson(response, indent=None),
    }
    json.dump(vectors, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
