package kv

import (
	"github.com/candor-bench/candor/internal/target/targettest"
	"testing"

	_ "github.com/candor-bench/candor/internal/target/mysql"
)

// TestIntegrationMySQL runs the KV integration test on MySQL or MariaDB when
// CANDOR_TEST_MYSQL_URL is set (scripts/mariadb-sandbox.sh). It lives in a
// file of its own because it is the only one that needs the mysql driver.
func TestIntegrationMySQL(t *testing.T) {
	u := targettest.MySQLURL(t)
	integration(t, u)
}
