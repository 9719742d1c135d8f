// Package oci distributes signed bundles through an OCI registry (OCI
// distribution spec; oras-go v2 as the client).
//
// A bundle is pushed as an OCI 1.1 image manifest (oras.PackManifest) with
// artifactType MediaType and one layer of the same media type holding the
// signed JWS exactly as the console serves it, under the tags "v<N>" and
// "latest" — for a toolgate.bundle/v2 version, its v1 form, which every
// runtime reads (internal/pusher; bundle doc.go, "Rolling upgrade"). The
// manifest is reproducible (its created annotation is the
// bundle's issue time), so pushing the same version twice, from one console
// or two, yields the same digest and is harmless. "latest" is never moved
// back: before tagging it, Push reads the version annotation of the
// manifest "latest" points to and leaves it alone when it is newer; after
// tagging, it lists the v<N> tags and points "latest" at the highest one,
// listing again after each such repair, which ends the races of pushers
// tagging in the wrong order (repairLatest says why it converges).
//
// Beside the bundles, the console pushes a signed timestamp (bundle doc.go,
// "Timestamp"): an artifact of TimestampMediaType with one layer, the JWS,
// under the tag "timestamp", moved on every re-signing and pushed after
// the bundle it names. It is what lets a runtime tell a registry that
// keeps serving an old bundle from an up-to-date one.
//
// Pull resolves a tag with one HEAD request; when the digest is the one the
// caller already has, nothing else is fetched (the ETag equivalent). The
// manifest and the layer are read with size bounds and checked against
// their digests by oras; the bytes are NOT trusted: the caller verifies the
// signature, version and expiry as for any other bundle source.
//
// Registry credentials (Credentials) come from a file or the environment;
// they are sent only to the registry host and never appear in logs or
// errors (Sanitize). PlainHTTP is for a loopback registry in development
// and tests; production registries use TLS.
package oci
