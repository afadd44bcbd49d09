package compare

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// JSON has no number for NaN or an infinity, and encoding/json refuses
// the whole document for one (walab compare --json failed on an infinite
// WA). The JSON result gives such a figure as null and names it, with its
// value, in "non_finite".

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// nullable is x, or nil with a note naming path when x is not finite.
func nullable(x float64, path string, notes *[]string) *float64 {
	if finite(x) {
		return &x
	}
	*notes = append(*notes, path+": "+strconv.FormatFloat(x, 'g', -1, 64))
	return nil
}

// MarshalJSON gives a bound that is not a finite number as null.
func (i Interval) MarshalJSON() ([]byte, error) {
	var notes []string
	return json.Marshal(struct {
		Est, Lo, Hi *float64
		OK          bool
		Why         string
	}{nullable(i.Est, "", &notes), nullable(i.Lo, "", &notes), nullable(i.Hi, "", &notes), i.OK, i.Why})
}

// finiteFacts is f with every figure that is not a finite number (a
// pointer or a list entry) left out, and a note for each.
func finiteFacts(f RunFacts, path string, notes *[]string) RunFacts {
	v := reflect.ValueOf(&f).Elem()
	finitePointers(v, path, notes)
	return f
}

func finitePointers(v reflect.Value, path string, notes *[]string) {
	floatPtr := reflect.TypeFor[*float64]()
	for i := range v.NumField() {
		fv, name := v.Field(i), path+"."+v.Type().Field(i).Name
		switch {
		case fv.Type() == floatPtr:
			if !fv.IsNil() && !finite(fv.Elem().Float()) {
				nullable(fv.Elem().Float(), name, notes)
				fv.Set(reflect.Zero(floatPtr))
			}
		case fv.Kind() == reflect.Slice && fv.Type().Elem() == floatPtr:
			s := reflect.MakeSlice(fv.Type(), fv.Len(), fv.Len()) // a copy: the result keeps its own
			reflect.Copy(s, fv)
			for j := range s.Len() {
				if e := s.Index(j); !e.IsNil() && !finite(e.Elem().Float()) {
					nullable(e.Elem().Float(), name+"["+strconv.Itoa(j)+"]", notes)
					e.Set(reflect.Zero(floatPtr))
				}
			}
			fv.Set(s)
		case fv.Kind() == reflect.Struct:
			finitePointers(fv, name, notes)
		}
	}
}
