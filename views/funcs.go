package views

import (
	"strconv"
	"strings"
)

func joinRoles(roles []string) string {
	if len(roles) == 0 {
		return "none"
	}
	return strings.Join(roles, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func termCount(n int) string {
	if n == 1 {
		return "1 term"
	}
	return strconv.Itoa(n) + " terms"
}
