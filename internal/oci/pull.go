package oci

import (
	"context"
	"encoding/json"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// Pulled is the answer to one pull.
type Pulled struct {
	// NotModified: the tag still resolves to the digest the caller had;
	// nothing but the HEAD request was made and Signed is nil.
	NotModified bool
	// Signed is the layer: the JWS as the console signed it (unverified).
	Signed []byte
	// Digest is the manifest's digest, the ETag equivalent.
	Digest string
}

// Pull resolves tag (one HEAD request); when it points at knownDigest the
// answer is NotModified. Otherwise it fetches the manifest, checks it is a
// bundle artifact with exactly one bundle layer within the size bound, and
// fetches that layer (oras checks both against their digests). The bytes
// are not trusted: the caller verifies them.
func (c *Client) Pull(ctx context.Context, tag, knownDigest string) (Pulled, error) {
	return c.pull(ctx, tag, knownDigest, bundleKind, c.maxBytes)
}

// artifactKind is one of the artifacts this package pushes.
type artifactKind struct{ name, mediaType string }

var (
	bundleKind    = artifactKind{"bundle", MediaType}
	timestampKind = artifactKind{"timestamp", TimestampMediaType}
)

func (c *Client) pull(ctx context.Context, tag, knownDigest string, kind artifactKind, maxBytes int64) (Pulled, error) {
	desc, err := c.repo.Resolve(ctx, tag)
	if err != nil {
		return Pulled{}, c.wrap("pull "+tag, err)
	}
	if knownDigest != "" && desc.Digest == digestOf(knownDigest) {
		return Pulled{NotModified: true, Digest: knownDigest}, nil
	}
	layer, err := c.layerOf(ctx, desc, kind, maxBytes)
	if err != nil {
		return Pulled{}, c.wrap("pull "+tag, err)
	}
	signed, err := content.FetchAll(ctx, c.repo, layer)
	if err != nil {
		return Pulled{}, c.wrap("pull "+tag, err)
	}
	return Pulled{Signed: signed, Digest: desc.Digest.String()}, nil
}

func (c *Client) readManifest(ctx context.Context, desc ocispec.Descriptor) ([]byte, error) {
	if desc.Size > maxManifestBytes {
		return nil, fmt.Errorf("manifest is %d bytes, more than %d", desc.Size, maxManifestBytes)
	}
	return content.FetchAll(ctx, c.repo, desc)
}

// layerOf reads the manifest desc points at and returns its one layer,
// refusing anything that is not an artifact of kind within maxBytes.
func (c *Client) layerOf(ctx context.Context, desc ocispec.Descriptor, kind artifactKind, maxBytes int64) (ocispec.Descriptor, error) {
	if desc.MediaType != ocispec.MediaTypeImageManifest {
		return ocispec.Descriptor{}, fmt.Errorf("not a %s: media type %q, want an OCI image manifest", kind.name, desc.MediaType)
	}
	raw, err := c.readManifest(ctx, desc)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("not a %s: manifest: %w", kind.name, err)
	}
	if m.ArtifactType != kind.mediaType || len(m.Layers) != 1 || m.Layers[0].MediaType != kind.mediaType {
		return ocispec.Descriptor{}, fmt.Errorf("not a %s: want artifactType and one layer of %s", kind.name, kind.mediaType)
	}
	layer := m.Layers[0]
	if layer.Size <= 0 || layer.Size > maxBytes {
		return ocispec.Descriptor{}, fmt.Errorf("%s layer is %d bytes, want 1..%d", kind.name, layer.Size, maxBytes)
	}
	return layer, nil
}
