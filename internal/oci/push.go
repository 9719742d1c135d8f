package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// Artifact is one signed bundle to push.
type Artifact struct {
	Version int64
	// Signed is the JWS exactly as the console serves it.
	Signed []byte
	// IssuedAt is the bundle's issue time; it is the manifest's created
	// annotation, which makes the manifest reproducible.
	IssuedAt time.Time
}

// Pushed is what a push left in the registry.
type Pushed struct {
	// Digest of the manifest tagged v<N>.
	Digest string
	// Latest is true when "latest" now points at this version; false when
	// the registry already had a newer one there.
	Latest bool
	// LatestVersion is the version "latest" points at after the push.
	LatestVersion int64
}

// Tag is the version tag of a bundle: "v<N>".
func Tag(version int64) string { return "v" + strconv.FormatInt(version, 10) }

// Push uploads the bundle (blob, empty config, manifest), tags it v<N>, and
// moves "latest" to it unless the registry has a newer version there. It is
// idempotent: the same artifact gives the same digest, and blobs already
// present are not sent again.
func (c *Client) Push(ctx context.Context, a Artifact) (Pushed, error) {
	if a.Version <= 0 || len(a.Signed) == 0 {
		return Pushed{}, fmt.Errorf("push %s: a version above 0 and a signed bundle are required", c.target)
	}
	desc, manifest, err := c.pushManifest(ctx, a)
	if err != nil {
		return Pushed{}, c.wrap("push", err)
	}
	p := Pushed{Digest: desc.Digest.String()}
	cur, curDigest, err := c.latestVersion(ctx, desc.Digest.String(), a.Version)
	if err != nil && !isNotFound(err) {
		return p, c.wrap("push: read latest", err)
	}
	if cur > a.Version {
		p.LatestVersion = cur
		return p, nil
	}
	if curDigest != p.Digest {
		if err := c.repo.PushReference(ctx, desc, bytes.NewReader(manifest), TagLatest); err != nil {
			return p, c.wrap("push: tag latest", err)
		}
	}
	// Another pusher may have tagged a newer version between our read and
	// our tag: point latest at the highest v<N> tag (it is pushed before
	// anyone tags latest, so the last one to tag always sees it).
	top, err := c.repairLatest(ctx, a.Version)
	if err != nil {
		return p, c.wrap("push: check latest", err)
	}
	p.Latest, p.LatestVersion = top == a.Version, top
	return p, nil
}

// pushManifest pushes the layer and the empty config when the registry
// lacks them, then the manifest (packed by oras.PackManifest into memory)
// under the tag v<N>: one PUT, where pushing and then tagging would cost a
// GET and a second PUT. It returns the manifest's descriptor and bytes.
func (c *Client) pushManifest(ctx context.Context, a Artifact) (ocispec.Descriptor, []byte, error) {
	return c.pushArtifact(ctx, MediaType, "bundle-"+Tag(a.Version)+".jws", a, Tag(a.Version))
}

// pushArtifact pushes a's JWS as the one layer of an artifact of
// mediaType (the layer's type too) and tags the manifest tag.
func (c *Client) pushArtifact(ctx context.Context, mediaType, title string, a Artifact, tag string) (ocispec.Descriptor, []byte, error) {
	layer := content.NewDescriptorFromBytes(mediaType, a.Signed)
	layer.Annotations = map[string]string{ocispec.AnnotationTitle: title}
	created := a.IssuedAt
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	mem := memory.New()
	desc, err := oras.PackManifest(ctx, mem, oras.PackManifestVersion1_1, mediaType, oras.PackManifestOptions{
		Layers: []ocispec.Descriptor{layer},
		ManifestAnnotations: map[string]string{
			ocispec.AnnotationCreated: created.UTC().Format(time.RFC3339),
			AnnotationVersion:         strconv.FormatInt(a.Version, 10),
		},
	})
	if err != nil {
		return desc, nil, err
	}
	manifest, err := content.FetchAll(ctx, mem, desc)
	if err != nil {
		return desc, nil, err
	}
	if err := pushIfMissing(ctx, c, layer, a.Signed); err != nil {
		return desc, nil, err
	}
	if err := pushIfMissing(ctx, c, ocispec.DescriptorEmptyJSON, ocispec.DescriptorEmptyJSON.Data); err != nil {
		return desc, nil, err
	}
	if err := c.repo.PushReference(ctx, desc, bytes.NewReader(manifest), tag); err != nil {
		return desc, nil, err
	}
	return desc, manifest, nil
}

func pushIfMissing(ctx context.Context, c *Client, desc ocispec.Descriptor, data []byte) error {
	ok, err := c.repo.Exists(ctx, desc)
	if err != nil || ok {
		return err
	}
	err = c.repo.Push(ctx, desc, bytes.NewReader(data))
	if errors.Is(err, errdef.ErrAlreadyExists) {
		return nil
	}
	return err
}

// LatestVersion is the bundle version "latest" points at and its manifest
// digest; an error matching ErrNotFound when there is no "latest" yet.
func (c *Client) LatestVersion(ctx context.Context) (int64, string, error) {
	v, d, err := c.latestVersion(ctx, "", 0)
	return v, d, c.wrap("read latest", err)
}

// latestVersion resolves latest (HEAD); when it is the manifest known
// (digest), that is version, with no other request; otherwise it reads the
// manifest's version annotation.
func (c *Client) latestVersion(ctx context.Context, known string, version int64) (int64, string, error) {
	desc, err := c.repo.Resolve(ctx, TagLatest)
	if err != nil {
		return 0, "", err
	}
	if known != "" && desc.Digest.String() == known {
		return version, known, nil
	}
	raw, err := c.readManifest(ctx, desc)
	if err != nil {
		return 0, "", err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return 0, "", fmt.Errorf("manifest of %q: %w", TagLatest, err)
	}
	v, err := strconv.ParseInt(m.Annotations[AnnotationVersion], 10, 64)
	if err != nil {
		// Not ours (or damaged): any bundle of ours may replace it.
		return 0, desc.Digest.String(), nil
	}
	return v, desc.Digest.String(), nil
}

// repairLatest points latest at the highest v<N> tag when that is above
// version (what this pusher just wrote there), and returns the version
// latest points at. After each write it lists the tags again: another
// pusher's repair may have listed before a newer tag existed and written
// its (older) top after that tag's own pusher had finished. So every write
// to latest is followed by a listing, and the last writer's listing sees
// every tag whose push completed before it; a tag completed after it is
// tagged latest by its own pusher, which reads latest only then.
func (c *Client) repairLatest(ctx context.Context, version int64) (int64, error) {
	wrote := version
	for range maxRepairs {
		top, err := c.highestTag(ctx, wrote)
		if err != nil || top == wrote {
			return wrote, err
		}
		desc, err := c.repo.Resolve(ctx, Tag(top))
		if isNotFound(err) {
			// Listed but not readable yet: that tag is being written, and
			// its pusher checks latest once it is (as this one did).
			return wrote, nil
		}
		if err != nil {
			return wrote, err
		}
		if err := c.repo.Tag(ctx, desc, TagLatest); err != nil {
			return wrote, err
		}
		wrote = top
	}
	return wrote, nil
}

// maxRepairs bounds repairLatest: each round moves latest strictly up, so
// it ends when the pushes do; the bound only stops a registry that keeps
// answering new tags from keeping one push busy.
const maxRepairs = 16

// highestTag returns the highest version of a v<N> tag, or floor when none
// is higher.
func (c *Client) highestTag(ctx context.Context, floor int64) (int64, error) {
	top := floor
	err := c.repo.Tags(ctx, "", func(tags []string) error {
		for _, t := range tags {
			if n, ok := strings.CutPrefix(t, "v"); ok {
				if v, err := strconv.ParseInt(n, 10, 64); err == nil && v > top && Tag(v) == t {
					top = v
				}
			}
		}
		return nil
	})
	return top, err
}

// isNotFound tells a missing tag or repository from other failures.
func isNotFound(err error) bool {
	if errors.Is(err, errdef.ErrNotFound) {
		return true
	}
	var resp *errcode.ErrorResponse
	return errors.As(err, &resp) && resp.StatusCode == 404
}

// digestOf parses a digest string the caller kept.
func digestOf(s string) digest.Digest { return digest.Digest(s) }
