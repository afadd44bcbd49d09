package tpcc

import (
	"errors"

	"github.com/go-sql-driver/mysql"
)

// retryable is the test's stand-in for the driver package's classification:
// deadlock and lock wait timeout.
func retryable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}
