// Package deploy holds the lab's deployment files; its tests check them
// without a Docker engine: the compose file through compose-go, the
// Prometheus and Alertmanager configs through promtool and amtool.
package deploy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/testenv"
)

const repoRoot = ".."

func loadCompose(t *testing.T) *types.Project { return loadComposeEnv(t, types.Mapping{}) }

func loadComposeEnv(t *testing.T, env types.Mapping) *types.Project {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  root,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(root, "docker-compose.yml")}},
		Environment: env,
	}, func(o *loader.Options) { o.SetProjectName("walab", true) })
	require.NoError(t, err)
	return p
}

func TestComposeServices(t *testing.T) {
	p := loadCompose(t)
	var names []string
	for n := range p.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	require.Equal(t, []string{"alertmanager", "exporter", "grafana", "loadgen1", "loadgen2",
		"mysql1", "mysql2", "node-exporter", "prometheus"}, names)
	require.True(t, p.Services["exporter"].Privileged, "the exporter needs CAP_SYS_ADMIN for NVMe admin passthrough")
	// The scenario label reaches loadgen: compose keeps $$ for the shell, and
	// WALAB_SCENARIO defaults to baseline when the host does not set it.
	for _, lg := range []string{"loadgen1", "loadgen2"} {
		s := p.Services[lg]
		require.Len(t, s.Command, 1, lg)
		require.Contains(t, s.Command[0], `--scenario="${WALAB_SCENARIO:-baseline}"`, lg)
		require.Contains(t, s.Command[0], "--web.listen-address=:10132", lg)
		require.NotNil(t, s.Environment["WALAB_SCENARIO"], lg)
		require.Equal(t, "baseline", *s.Environment["WALAB_SCENARIO"], lg)
	}
}

// TestComposeImagesPinned: every image names a version, never latest.
func TestComposeImagesPinned(t *testing.T) {
	for name, s := range loadCompose(t).Services {
		require.NotEmpty(t, s.Image, "%s: no image", name)
		i := strings.LastIndex(s.Image, ":")
		require.Positive(t, i, "%s: image %q has no tag", name, s.Image)
		tag := s.Image[i+1:]
		require.NotEqual(t, "latest", tag, "%s", name)
		require.Regexp(t, `^v?\d+\.\d+`, tag, "%s: tag %q is not a version", name, tag)
		if s.Build != nil {
			_, err := os.Stat(filepath.Join(s.Build.Context, s.Build.Dockerfile))
			require.NoError(t, err, "%s: Dockerfile", name)
		}
	}
}

// hostPaths are the host directories the exporter and node_exporter read;
// every other bind source must be a file of this repository.
var hostPaths = map[string]bool{"/dev": true, "/sys": true, "/proc": true, "/": true}

func TestComposeMountsExist(t *testing.T) {
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	p := loadCompose(t)
	dataDir := filepath.Join(root, "deploy", "lab-data")
	for name, s := range p.Services {
		for _, v := range s.Volumes {
			switch v.Type {
			case types.VolumeTypeBind:
				if v.Source == dataDir || strings.HasPrefix(v.Source, dataDir+"/") {
					continue // the data directories: TestComposeDataOnDeviceUnderTest
				}
				if hostPaths[v.Source] {
					require.True(t, v.ReadOnly, "%s: host path %s must be read-only", name, v.Source)
					continue
				}
				require.True(t, strings.HasPrefix(v.Source, root), "%s: bind %s outside the repo", name, v.Source)
				_, err := os.Stat(v.Source)
				require.NoError(t, err, "%s: mounted path", name)
				require.True(t, v.ReadOnly, "%s: repo file %s should be mounted read-only", name, v.Source)
			case types.VolumeTypeVolume:
				_, ok := p.Volumes[v.Source]
				require.True(t, ok, "%s: volume %s not declared", name, v.Source)
			}
		}
	}
}

// TestComposePortsLoopback: published ports are bound to 127.0.0.1 only.
func TestComposePortsLoopback(t *testing.T) {
	want := map[string]string{"mysql1": "3307", "mysql2": "3308", "exporter": "9910", "prometheus": "9090", "alertmanager": "9093", "grafana": "3000"}
	got := map[string]string{}
	for name, s := range loadCompose(t).Services {
		for _, port := range s.Ports {
			require.Equal(t, "127.0.0.1", port.HostIP, "%s: port %s published beyond loopback", name, port.Published)
			got[name] = port.Published
		}
	}
	require.Equal(t, want, got)
}

func TestComposeHealthAndOrder(t *testing.T) {
	p := loadCompose(t)
	for name, s := range p.Services {
		require.NotNil(t, s.HealthCheck, "%s: no healthcheck", name)
		require.NotEmpty(t, s.HealthCheck.Test, "%s", name)
		for dep, d := range s.DependsOn {
			target, ok := p.Services[dep]
			require.True(t, ok, "%s depends on unknown %s", name, dep)
			require.Contains(t, []string{types.ServiceConditionHealthy, types.ServiceConditionStarted}, d.Condition, "%s -> %s", name, dep)
			if d.Condition == types.ServiceConditionHealthy {
				require.NotNil(t, target.HealthCheck, "%s waits for %s to be healthy, which has no healthcheck", name, dep)
			}
		}
	}
	for _, lg := range []string{"loadgen1", "loadgen2"} {
		require.Equal(t, types.ServiceConditionHealthy, p.Services[lg].DependsOn[strings.Replace(lg, "loadgen", "mysql", 1)].Condition)
	}
}

// TestComposeMySQLConfigs: both instances mount their seed-000 config and
// keep the seed's durability settings.
func TestComposeMySQLConfigs(t *testing.T) {
	for _, f := range []string{"mysql/my-1.cnf", "mysql/my-2.cnf"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, kv := range []string{"innodb_flush_method=O_DIRECT", "innodb_flush_log_at_trx_commit=1", "sync_binlog=1", "innodb_flush_neighbors=0", "log-bin=mysql-bin"} {
			require.Contains(t, string(b), "\n"+kv, "%s", f)
		}
	}
}

func TestPrometheusConfig(t *testing.T) {
	promtool := testenv.RequireBinary(t, "promtool")
	out, err := exec.Command(promtool, "check", "config", "--syntax-only", "prometheus/prometheus.yml").CombinedOutput()
	require.NoError(t, err, "%s", out)
	b, err := os.ReadFile("prometheus/prometheus.yml")
	require.NoError(t, err)
	for _, target := range []string{"exporter:9910", "loadgen1:10132", "loadgen2:10132", "node-exporter:9100", "alertmanager:9093"} {
		require.Contains(t, string(b), target)
	}
}

func TestAlertmanagerConfig(t *testing.T) {
	amtool := testenv.RequireBinary(t, "amtool")
	out, err := exec.Command(amtool, "check-config", "alertmanager/alertmanager.yml").CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// TestComposeDataOnDeviceUnderTest: both MySQL data directories are bind
// mounts under WALAB_DATA_DIR (the filesystem on the measured drive),
// defaulting to deploy/lab-data for the simulated drive; the exporter sees
// the same directory read-only at /data, where its config looks.
func TestComposeDataOnDeviceUnderTest(t *testing.T) {
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	for _, tc := range []struct {
		env  types.Mapping
		base string
	}{
		{types.Mapping{}, filepath.Join(root, "deploy", "lab-data")},
		{types.Mapping{"WALAB_DATA_DIR": "/data"}, "/data"},
	} {
		p := loadComposeEnv(t, tc.env)
		for _, svc := range []string{"mysql1", "mysql2"} {
			var found bool
			for _, v := range p.Services[svc].Volumes {
				if v.Target == "/var/lib/mysql" {
					found = true
					require.Equal(t, types.VolumeTypeBind, v.Type, "%s: datadir must be a bind mount on the measured filesystem, not a Docker volume", svc)
					require.Equal(t, filepath.Join(tc.base, svc), v.Source, svc)
					require.False(t, v.ReadOnly, svc)
				}
			}
			require.True(t, found, "%s mounts no /var/lib/mysql", svc)
		}
		var exporterData bool
		for _, v := range p.Services["exporter"].Volumes {
			if v.Target == "/data" {
				exporterData = true
				require.Equal(t, tc.base, v.Source)
				require.True(t, v.ReadOnly, "the exporter only reads the data directories")
			}
		}
		require.True(t, exporterData, "the exporter mounts the data directory at /data")
	}

	f, err := config.Load("exporter/exporter.yml")
	require.NoError(t, err)
	var streams struct {
		DataDirs []string `yaml:"data_dirs"`
		Daemon   string   `yaml:"daemon"`
	}
	require.NoError(t, f.Decode("streams", &streams))
	var fs struct {
		Paths []string `yaml:"paths"`
	}
	require.NoError(t, f.Decode("filesystem", &fs))
	var irq struct {
		Interfaces []string `yaml:"interfaces"`
		PerCPU     bool     `yaml:"per_cpu"`
	}
	require.NoError(t, f.Decode("irq", &irq))
	want := []string{"/data/mysql1", "/data/mysql2"}
	require.Equal(t, want, streams.DataDirs, "write-life hints are read where the datadirs are mounted")
	require.Equal(t, want, fs.Paths, "fill is read on the datadirs' filesystem")
	require.NotEmpty(t, irq.Interfaces, "the NIC whose IRQs seed 000 pins")
	require.True(t, irq.PerCPU, "the lab's IRQ dashboard reads interrupts per CPU")
}
