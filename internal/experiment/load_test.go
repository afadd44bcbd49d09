package experiment

import (
	"os"

	"github.com/walab/walab/internal/experiment/plan"
)

// Parse is plan.Load of a plan without ${NAME} values, with the check
// kinds: the tests' short form.
func Parse(data []byte) (*plan.Plan, error) {
	return plan.Load(plan.Source{Raw: data}, Kinds())
}

// ParseEnv is plan.Load with getenv's ${NAME} values.
func ParseEnv(data []byte, getenv func(string) (string, bool)) (*plan.Plan, error) {
	return plan.Load(plan.Source{Raw: data, Getenv: getenv}, Kinds())
}

// create is Create of a plan as walab experiment run hands it over.
func create(raw []byte, out string) (*Executor, error) {
	return Create(plan.Source{Raw: raw, Getenv: os.LookupEnv}, out)
}
