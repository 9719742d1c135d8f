package otlptest

import (
	"strconv"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
)

// Attr returns the text of a span or event attribute ("" when absent):
// strings as they are, integers and booleans formatted.
func Attr(attrs []*commonpb.KeyValue, key string) string {
	for _, kv := range attrs {
		if kv.Key != key {
			continue
		}
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return strconv.FormatInt(v.IntValue, 10)
		case *commonpb.AnyValue_BoolValue:
			return strconv.FormatBool(v.BoolValue)
		}
	}
	return ""
}
