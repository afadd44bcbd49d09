package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace"`
		Labels    map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec map[string]any `yaml:"spec"`
}

func loadK8s(t *testing.T) map[string]k8sObject {
	t.Helper()
	files, err := filepath.Glob("k8s/*.yaml")
	require.NoError(t, err)
	objs := map[string]k8sObject{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var o k8sObject
			err := dec.Decode(&o)
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, f)
			require.NotEmpty(t, o.Kind, f)
			objs[o.Kind+"/"+o.Metadata.Name] = o
		}
	}
	return objs
}

func TestK8sObjects(t *testing.T) {
	objs := loadK8s(t)
	for _, k := range []string{"Namespace/walab", "DaemonSet/walab-exporter", "Job/walab-loadgen", "Service/walab-exporter",
		"Service/walab-loadgen", "ServiceMonitor/walab-exporter", "ServiceMonitor/walab-loadgen", "PrometheusRule/walab", "ConfigMap/walab-exporter"} {
		require.Contains(t, objs, k)
	}
	for k, o := range objs {
		if o.Kind != "Namespace" {
			require.Equal(t, "walab", o.Metadata.Namespace, k)
		}
	}
	// Each ServiceMonitor selects the labels of its Service.
	for _, c := range []string{"exporter", "loadgen"} {
		sm := objs["ServiceMonitor/walab-"+c]
		sel := sm.Spec["selector"].(map[string]any)["matchLabels"].(map[string]any)
		svc := objs["Service/walab-"+c]
		for k, v := range sel {
			require.Equal(t, v, svc.Metadata.Labels[k], "ServiceMonitor %s label %s", c, k)
		}
	}
}
