package views

import "strconv"

// countText is a call count as the outcome tables show it.
func countText(n int64) string { return strconv.FormatInt(n, 10) }

// percent is a share as the outcome tables show it.
func percent(p int) string { return strconv.Itoa(p) + " %" }
