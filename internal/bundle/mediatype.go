package bundle

// MediaTypeJOSE is the media type of a signed bundle on the wire: a JWS
// compact serialization (RFC 7515 §9.2).
const MediaTypeJOSE = "application/jose"
