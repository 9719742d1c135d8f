package oci

import (
	"context"
	"fmt"
	"time"
)

// TimestampMediaType is the timestamp artifact's type (the manifest's
// artifactType and its one layer's media type, the signed JWS).
const TimestampMediaType = "application/vnd.toolgate.timestamp.v1+jws"

// TagTimestamp is the tag of the newest timestamp (bundle doc.go,
// "Timestamp"): one tag moved on every re-signing; the manifests it
// leaves behind are untagged and go with the registry's garbage collection.
const TagTimestamp = "timestamp"

// maxTimestampBytes bounds a pulled timestamp: ours is about 400 bytes.
const maxTimestampBytes = 4 << 10

// PushTimestamp uploads a signed timestamp naming bundle version and
// points the tag "timestamp" at it. Call it after the bundle it names is
// pushed, so a runtime that reads the timestamp and then the bundle never
// sees a timestamp ahead of a registry that is up to date.
func (c *Client) PushTimestamp(ctx context.Context, version int64, signed []byte, issuedAt time.Time) (string, error) {
	if version <= 0 || len(signed) == 0 || len(signed) > maxTimestampBytes {
		return "", fmt.Errorf("push timestamp %s: a version above 0 and a signed timestamp of at most %d bytes are required",
			c.target, maxTimestampBytes)
	}
	a := Artifact{Version: version, Signed: signed, IssuedAt: issuedAt}
	desc, _, err := c.pushArtifact(ctx, TimestampMediaType, "timestamp.jws", a, TagTimestamp)
	if err != nil {
		return "", c.wrap("push timestamp", err)
	}
	return desc.Digest.String(), nil
}

// PullTimestamp is Pull for the tag "timestamp": one HEAD when it still
// points at knownDigest, else the manifest and the layer (at most 4 KiB),
// unverified. An error matching ErrNotFound when there is none.
func (c *Client) PullTimestamp(ctx context.Context, knownDigest string) (Pulled, error) {
	return c.pull(ctx, TagTimestamp, knownDigest, timestampKind, maxTimestampBytes)
}
