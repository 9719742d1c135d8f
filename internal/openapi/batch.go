package openapi

import (
	"bytes"
	"errors"
	"runtime"
	"runtime/metrics"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
	v2low "github.com/pb33f/libopenapi/datamodel/low/v2"
	v3low "github.com/pb33f/libopenapi/datamodel/low/v3"
	"github.com/pb33f/libopenapi/index"
	"github.com/pb33f/libopenapi/utils"

	v2high "github.com/pb33f/libopenapi/datamodel/high/v2"
	v3high "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// defaultBatchOps is how many operations' models are built at once. The
// library's model and index of a path item are several times the node tree
// they are read from; built for a whole document they held ~145× its bytes
// at 20,000 operations. Built batch by batch, each batch's model is garbage
// once its operations are converted, and its path items are released from
// the tree, so an import holds the tree and one batch. A document of up to
// twice this many operations is built whole, as before.
const defaultBatchOps = 250

func (o Options) batchOps() int {
	if o.batchSize > 0 {
		return o.batchSize
	}
	return defaultBatchOps
}

// pathBatches splits the root's path items into consecutive runs of about
// per operations each, as [lo, hi) indexes of paths.Content. It returns nil
// (build the document whole) when two batches would hold every operation
// (such a model is small, and each batch indexes the components again), or when
// a batch could not be built on its own: a $ref into #/paths from anywhere
// in the root (data), which a batch without that path item would not
// resolve.
func pathBatches(paths *yaml.Node, data []byte, per int) [][2]int {
	if per <= 0 || paths == nil || paths.Kind != yaml.MappingNode || bytes.Contains(data, []byte("#/paths")) {
		return nil
	}
	var out [][2]int
	lo, ops, total := 0, 0, 0
	for i := 0; i+1 < len(paths.Content); i += 2 {
		n := max(1, methodCount(valueOf(paths.Content[i+1])))
		ops, total = ops+n, total+n
		if ops >= per {
			out = append(out, [2]int{lo, i + 2})
			lo, ops = i+2, 0
		}
	}
	if lo < len(paths.Content) {
		out = append(out, [2]int{lo, len(paths.Content)})
	}
	if total <= 2*per {
		return nil
	}
	return out
}

// methodCount counts the operation keys of a path item mapping.
func methodCount(item *yaml.Node) int {
	n := 0
	for j := 0; item != nil && item.Kind == yaml.MappingNode && j+1 < len(item.Content); j += 2 {
		if operationKeys[item.Content[j].Value] {
			n++
		}
	}
	return n
}

// eachBatch calls build once per batch with the root's paths holding only
// that batch's path items (first and last mark the ends), and its component
// sections only what those reach (componentScope), then releases the
// batch: its entries in the tree are cleared, so the node tree shrinks as
// the model of each batch becomes garbage. Without batches build is called
// once on the whole, untouched tree.
func eachBatch(doc libopenapi.Document, data []byte, per int, build func(first, last bool) error) error {
	root := doc.GetSpecInfo().RootNode
	if root == nil || len(root.Content) == 0 {
		return build(true, true)
	}
	paths := valueOf(mapGet(root.Content[0], "paths"))
	batches := pathBatches(paths, data, per)
	if batches == nil {
		return build(true, true)
	}
	all, aliases := paths.Content, hasAliases(root)
	scope := newComponentScope(root.Content[0], data)
	var g heapGuard
	for i, r := range batches {
		paths.Content = all[r[0]:r[1]]
		narrowed := scope.narrow(paths.Content)
		err := build(i == 0, i == len(batches)-1)
		if narrowed {
			scope.widen()
		}
		if err != nil {
			return err
		}
		release(all[r[0]:r[1]], aliases)
		g.collect()
	}
	paths.Content = nil
	return nil
}

// release drops a built batch's path items from the tree. The JSON decoder
// allocates nodes and their Content slices in shared slabs, so one live
// node keeps its whole slab, and every node the slab points to, alive:
// clearing the paths' entries alone frees nothing. Emptying each released
// node's Content breaks that chain.
// In a document with aliases nothing is emptied: a merge key may have
// copied an anchored mapping's children into a path item, so a released
// node can still be read from elsewhere.
func release(nodes []*yaml.Node, aliases bool) {
	for i, n := range nodes {
		nodes[i] = nil
		if !aliases {
			emptyTree(n)
		}
	}
}

func emptyTree(n *yaml.Node) {
	if n == nil {
		return
	}
	for _, c := range n.Content {
		emptyTree(c)
	}
	n.Content = nil
}

// hasAliases reports whether a tree holds an alias or an anchor.
func hasAliases(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return true
	}
	for _, c := range n.Content {
		if c != nil && hasAliases(c) {
			return true
		}
	}
	return false
}

// batchGarbage is how much garbage a heapGuard lets batches leave before it
// collects: about one batch's model.
const batchGarbage = 32 << 20

// heapGuard collects between batches once the heap holds more than
// batchGarbage over what the last collection left live. The collector's own
// pace lets the heap grow to twice the live heap, and the node tree alone is
// ~20× the document: left to itself a 10 MB import peaks near 600 MiB with
// under 300 MiB live. A collection costs a mark of the live heap, about what
// the collector's own cycles at that pace cost.
type heapGuard struct{ samples []metrics.Sample }

func (g *heapGuard) collect() {
	if g.samples == nil {
		g.samples = []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	}
	metrics.Read(g.samples)
	live, objects := g.samples[0].Value, g.samples[1].Value
	if live.Kind() != metrics.KindUint64 || objects.Kind() != metrics.KindUint64 {
		return
	}
	if objects.Uint64() > live.Uint64()+batchGarbage {
		runtime.GC()
	}
}

// buildV3 is libopenapi's BuildV3Model without its cache, so a document
// can be built again after its paths changed (eachBatch).
func buildV3(doc libopenapi.Document) (*v3high.Document, error) {
	low, err := v3low.CreateDocumentFromConfig(doc.GetSpecInfo(), libraryConfig(doc))
	if low == nil {
		return nil, err
	}
	errs := utils.UnwrapErrors(err)
	if fatalResolving(errs) {
		return nil, errors.Join(errs...)
	}
	high := v3high.NewDocument(low)
	lowbase.SchemaQuickHashMap.Clear()
	return high, errors.Join(errs...)
}

// buildV2 is buildV3 for a Swagger 2.0 document.
func buildV2(doc libopenapi.Document) (*v2high.Swagger, error) {
	low, err := v2low.CreateDocumentFromConfig(doc.GetSpecInfo(), libraryConfig(doc))
	if low == nil {
		return nil, err
	}
	errs := utils.UnwrapErrors(err)
	if fatalResolving(errs) {
		return nil, errors.Join(errs...)
	}
	high := v2high.NewSwaggerDocument(low)
	lowbase.SchemaQuickHashMap.Clear()
	return high, errors.Join(errs...)
}

func libraryConfig(doc libopenapi.Document) *datamodel.DocumentConfiguration {
	if cfg := doc.GetConfiguration(); cfg != nil {
		return cfg
	}
	return datamodel.NewDocumentConfiguration()
}

// fatalResolving reports a resolving error other than a circular
// reference: the library then builds no model.
func fatalResolving(errs []error) bool {
	for _, err := range errs {
		var refErr *index.ResolvingError
		if errors.As(err, &refErr) && refErr.CircularReference == nil {
			return true
		}
	}
	return false
}
