package compare

import "fmt"

// judgement is the state one comparison's checks share: the result, the
// options, the two runs' facts, and the verdict the checks add to.
type judgement struct {
	r    *Result
	o    Options
	unit string // the round's name: hour, round, ...
	b, c RunFacts
	v    Verdict
}

// add records one check; a failed one is also a reason the comparison is
// not valid.
func (j *judgement) add(name, status, format string, a ...any) {
	c := Check{Name: name, Status: status, Detail: fmt.Sprintf(format, a...)}
	j.v.Checks = append(j.v.Checks, c)
	if status == Fail {
		j.v.Reasons = append(j.v.Reasons, name+": "+c.Detail)
	}
}

// simulated: both runs were on the exporter's simulated drive.
func simulated(j *judgement) bool { return j.b.Simulated && j.c.Simulated }
