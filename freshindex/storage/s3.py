"""The ``s3://bucket/prefix`` backend, with boto3's standard configuration.

Endpoint and credentials come from the standard AWS variables
(``AWS_ENDPOINT_URL``/``AWS_ENDPOINT_URL_S3``, ``AWS_ACCESS_KEY_ID``, …) and are
never echoed: error messages name the bucket, the key and the endpoint host.

Conditional writes are S3's own: ``IfNoneMatch='*'`` and ``IfMatch=etag``.
botocore retries failed requests on its own, so a put that landed can come
back as 412 (the retry saw our own object) or as a timeout. Such an outcome
is *unknown*: we read the object back and compare bytes before deciding, and
raise CommitStateUnknown when even that fails (Iceberg learned this the hard way).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import boto3
import botocore.config
import botocore.exceptions

from freshindex.core.exceptions import (
    CommitStateUnknown,
    NotFound,
    PreconditionFailed,
    StoreUnavailable,
)
from freshindex.storage.base import Blob, Store

_NETWORK_ERRORS = (
    botocore.exceptions.EndpointConnectionError,
    botocore.exceptions.ConnectTimeoutError,
    botocore.exceptions.ReadTimeoutError,
    botocore.exceptions.ConnectionClosedError,
)


class S3Store(Store):
    def __init__(self, uri: str, client: Any | None = None):
        parsed = urlparse(uri)
        if parsed.scheme != "s3" or not parsed.netloc:
            raise StoreUnavailable(f"bad S3 store URI {uri!r}: expected s3://bucket/prefix")
        self.uri = uri.rstrip("/")
        self.bucket = parsed.netloc
        self.prefix = parsed.path.strip("/")
        self.client = client or boto3.client(
            "s3",
            config=botocore.config.Config(
                retries={"max_attempts": 3, "mode": "standard"},
                connect_timeout=5,
                read_timeout=60,
                # virtual-host addressing breaks on localhost endpoints (MinIO, moto)
                s3={"addressing_style": "path"},
            ),
        )
        self._checked = False

    # -- helpers -------------------------------------------------------------

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def _endpoint(self) -> str:
        host = urlparse(self.client.meta.endpoint_url).netloc or self.client.meta.endpoint_url
        return host

    def _fail(self, err: Exception, key: str) -> Exception:
        """Translate a botocore error into our own, with no credentials in it."""
        if isinstance(err, _NETWORK_ERRORS):
            return StoreUnavailable(
                f"cannot reach S3 endpoint {self._endpoint()} for s3://{self.bucket}"
            )
        if isinstance(err, botocore.exceptions.NoCredentialsError):
            return StoreUnavailable(
                "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
            )
        if isinstance(err, botocore.exceptions.ClientError):
            code = str(err.response.get("Error", {}).get("Code", ""))
            status = err.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if code == "NoSuchBucket":
                return StoreUnavailable(
                    f"S3 bucket {self.bucket!r} does not exist at {self._endpoint()}"
                )
            if code in ("NoSuchKey", "404", "NotFound"):
                return NotFound(f"s3://{self.bucket}/{self._key(key)} does not exist")
            if code in ("PreconditionFailed", "ConditionalRequestConflict") or status in (409, 412):
                return PreconditionFailed(f"{key}: condition failed ({code or status})")
            if code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
                return StoreUnavailable(f"S3 refused access to s3://{self.bucket} ({code})")
            return StoreUnavailable(
                f"S3 error on s3://{self.bucket}/{self._key(key)}: {code or status}"
            )
        return err

    def _call(self, key: str, fn: Any, **kwargs: Any) -> Any:
        try:
            return fn(Bucket=self.bucket, **kwargs)
        except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as err:
            raise self._fail(err, key) from err

    def check(self) -> None:
        """Fail fast, with one clear line, when the bucket is missing or unreachable."""
        if not self._checked:
            try:
                self._call("", self.client.head_bucket)
            except NotFound as err:  # HEAD has no body: a bare 404 means no bucket
                raise StoreUnavailable(
                    f"S3 bucket {self.bucket!r} does not exist at {self._endpoint()}"
                ) from err
            self._checked = True

    def check_writable(self) -> None:
        self.check()  # the bucket exists and answers; permissions show at the first put

    # -- Store ---------------------------------------------------------------

    def get(self, key: str) -> Blob:
        resp = self._call(key, self.client.get_object, Key=self._key(key))
        return Blob(resp["Body"].read(), resp["ETag"])

    def exists(self, key: str) -> bool:
        try:
            self._call(key, self.client.head_object, Key=self._key(key))
        except NotFound:
            return False
        return True

    def put(self, key: str, data: bytes) -> None:
        self._call(key, self.client.put_object, Key=self._key(key), Body=data)

    def put_if_absent(self, key: str, data: bytes) -> str:
        try:
            resp = self._call(
                key, self.client.put_object, Key=self._key(key), Body=data, IfNoneMatch="*"
            )
            return str(resp["ETag"])
        except (PreconditionFailed, StoreUnavailable) as err:
            return self._settle(key, data, err)

    def put_if_match(self, key: str, data: bytes, etag: str | None) -> str:
        if etag is None:
            return self.put_if_absent(key, data)
        try:
            resp = self._call(
                key, self.client.put_object, Key=self._key(key), Body=data, IfMatch=etag
            )
            return str(resp["ETag"])
        except (PreconditionFailed, StoreUnavailable) as err:
            return self._settle(key, data, err)

    def _settle(self, key: str, data: bytes, err: Exception) -> str:
        """A conditional put failed or timed out: did our bytes land anyway?

        Bodies are unique per writer (nonce), so equal bytes mean our write won."""
        try:
            blob = self.get(key)
        except NotFound:
            if isinstance(err, PreconditionFailed):
                raise err from None
            raise CommitStateUnknown(
                f"{key}: write outcome unknown and object absent on read-back"
            ) from err
        except StoreUnavailable as read_err:
            raise CommitStateUnknown(f"{key}: write outcome unknown ({read_err})") from err
        if blob.data == data:
            return blob.etag
        if isinstance(err, PreconditionFailed):
            raise err
        raise PreconditionFailed(f"{key}: another writer's object is there") from err

    def _objects(self, prefix: str, start_after: str | None = None) -> Iterator[tuple[str, int]]:
        full = self._key(prefix)
        strip = len(self.prefix) + 1 if self.prefix else 0
        kwargs: dict[str, Any] = {"Bucket": self.bucket, "Prefix": full}
        if start_after is not None:
            kwargs["StartAfter"] = self._key(start_after)
        pages = self.client.get_paginator("list_objects_v2").paginate(**kwargs)
        try:
            for page in pages:
                for obj in page.get("Contents", []):
                    yield obj["Key"][strip:], int(obj.get("Size", 0))
        except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as err:
            raise self._fail(err, prefix) from err

    def list(self, prefix: str, start_after: str | None = None) -> Iterator[str]:
        return iter(sorted(key for key, _ in self._objects(prefix, start_after)))

    def sizes(self, prefix: str) -> dict[str, int]:
        return dict(self._objects(prefix))

    def delete(self, key: str) -> None:
        self._call(key, self.client.delete_object, Key=self._key(key))
