package commitloop

import (
	"os"
	"testing"

	_ "github.com/candor-bench/candor/internal/target/mysql"
)

// TestIntegrationMySQL runs the commit-loop integration test on MySQL or
// MariaDB when CANDOR_TEST_MYSQL_URL is set (scripts/mariadb-sandbox.sh). It
// lives in a file of its own because it is the only one that needs the mysql
// driver.
func TestIntegrationMySQL(t *testing.T) {
	u := os.Getenv("CANDOR_TEST_MYSQL_URL")
	if u == "" {
		t.Skip("CANDOR_TEST_MYSQL_URL is not set: skipping (start a server with `U=$(scripts/mariadb-sandbox.sh start /tmp/kvmaria)`)")
	}
	integration(t, u)
}
