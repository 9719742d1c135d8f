package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// variedTools is a bundle input of n tools on source "shop", each with an
// input schema of its own (as an imported API gives): two GET tools with a
// path parameter and query parameters, then one POST with a JSON body
// object, in turn. tag is part of every description, so two inputs with
// different tags differ in every tool's text but in no schema.
func variedTools(n int, tag string) []bundle.ToolInput {
	read := policy.NewToolPolicy("GET", risk.Read, policy.BuiltinDefaults())
	read.Exposed = true
	write := policy.NewToolPolicy("POST", risk.Write, policy.BuiltinDefaults())
	write.Exposed = true
	tools := make([]bundle.ToolInput, n)
	for i := range tools {
		if i%3 == 2 {
			tools[i] = bundle.ToolInput{Name: fmt.Sprintf("createItem%05d", i), Source: "shop", Method: "POST",
				Path:        fmt.Sprintf("/kinds/%d/items", i),
				Description: fmt.Sprintf("Create an item of kind %d (%s). Returns the new item with its id; fails with 409 when an item of that name exists.", i, tag),
				Body:        &bundle.Body{Arg: "body", Required: true, MediaType: "application/json"},
				InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","additionalProperties":false,"required":["body"],"properties":{"body":{"type":"object","additionalProperties":false,"required":["name"],"properties":{"name":{"type":"string","minLength":1,"maxLength":200,"description":"Display name of the item"},"quantity":{"type":"integer","minimum":0,"maximum":%d},"tags":{"type":"array","maxItems":10,"items":{"type":"string","enum":["new","sale","kind%d"]}},"price":{"type":"object","required":["amount","currency"],"properties":{"amount":{"type":"integer"},"currency":{"type":"string","pattern":"^[A-Z]{3}$"}}}}}}}`, 1000+i, i)),
				Assessment:  risk.Assessment{Class: risk.Write, Reasons: []risk.Reason{{Code: "method:POST", Class: risk.Write, Text: "POST creates"}}},
				Policy:      write}
			continue
		}
		tools[i] = bundle.ToolInput{Name: fmt.Sprintf("getItem%05d", i), Source: "shop", Method: "GET",
			Path:        fmt.Sprintf("/kinds/%d/items/{item_id}", i),
			Description: fmt.Sprintf("Get an item of kind %d (%s). Returns the item with its price, stock and tags; fails with 404 when it does not exist.", i, tag),
			Params: []bundle.Param{{Name: "item_id", In: "path", Arg: "item_id", Required: true},
				{Name: "expand", In: "query", Arg: "expand"}, {Name: "limit", In: "query", Arg: "limit"}},
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","additionalProperties":false,"required":["item_id"],"properties":{"item_id":{"type":"string","minLength":1,"maxLength":64,"description":"Id of the item"},"expand":{"type":"array","items":{"type":"string","enum":["price","stock","kind%d"]}},"limit":{"type":"integer","minimum":1,"maximum":%d}}}`, i, 100+i)),
			Assessment:  risk.Assessment{Class: risk.Read, Reasons: []risk.Reason{{Code: "method:GET", Class: risk.Read, Text: "GET reads"}}},
			Policy:      read}
	}
	return tools
}
