// Package kubernetes holds the manifests of a sharded run on Kubernetes and
// their test: each is decoded strictly into the Kubernetes API types (an
// unknown or misspelt field fails), and the candor command lines of the
// Jobs are parsed by candor's own command, as a pod would run them.
package kubernetes

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/candor-bench/candor/internal/cli"
)

func decode(t *testing.T, file string, obj any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, obj); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// expand substitutes $(VAR) as the kubelet does in a container's args.
func expand(s string, env map[string]string) string {
	return regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := env[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

func TestManifests(t *testing.T) {
	var cm corev1.ConfigMap
	var pvc corev1.PersistentVolumeClaim
	var shards, merge batchv1.Job
	decode(t, "configmap.yaml", &cm)
	decode(t, "pvc.yaml", &pvc)
	decode(t, "job-shards.yaml", &shards)
	decode(t, "job-merge.yaml", &merge)
	for _, o := range []struct{ kind, apiVersion, gotKind, gotAPI string }{
		{"ConfigMap", "v1", cm.Kind, cm.APIVersion},
		{"PersistentVolumeClaim", "v1", pvc.Kind, pvc.APIVersion},
		{"Job", "batch/v1", shards.Kind, shards.APIVersion},
		{"Job", "batch/v1", merge.Kind, merge.APIVersion},
	} {
		if o.gotKind != o.kind || o.gotAPI != o.apiVersion {
			t.Errorf("%s %s, want %s %s", o.gotAPI, o.gotKind, o.apiVersion, o.kind)
		}
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("the results volume is %v: every shard pod writes to it, it must be ReadWriteMany", pvc.Spec.AccessModes)
	}

	spec := shards.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("the shards Job's completionMode is %v, want Indexed", spec.CompletionMode)
	}
	n := cm.Data["SHARDS"]
	if spec.Parallelism == nil || spec.Completions == nil || itoa(*spec.Parallelism) != n || itoa(*spec.Completions) != n {
		t.Errorf("parallelism %v and completions %v must both be the ConfigMap's SHARDS %s", spec.Parallelism, spec.Completions, n)
	}
	for _, j := range []batchv1.Job{shards, merge} {
		if p := j.Spec.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever {
			t.Errorf("%s restarts %q: a shard restarted mid-run would measure a different run; want Never", j.Name, p)
		}
		checkVolume(t, j, pvc.Name)
	}

	// Each shard's command line, as the kubelet expands it for pod 1.
	c := shards.Spec.Template.Spec.Containers[0]
	env := map[string]string{"CANDOR_TARGET": "null://"}
	for k, v := range cm.Data {
		env[k] = v
	}
	var index bool
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			env[e.Name], index = "1", true
		}
		if e.Value != "" {
			env[e.Name] = e.Value
		}
		if e.Name == "CANDOR_TARGET" && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
			t.Error("the target URL holds a password: it must come from a Secret")
		}
	}
	if !index {
		t.Fatal("no environment variable holds the pod's completion index")
	}
	var args []string
	for _, a := range c.Args {
		args = append(args, expand(a, env))
	}
	joined := strings.Join(args, " ")
	for _, want := range []string{"--shard 1/" + n, "--start-at " + cm.Data["START_AT"], "--run-id " + cm.Data["RUN_ID"], "--out /results/"} {
		if !strings.Contains(joined, want) {
			t.Errorf("shard command %q lacks %q", joined, want)
		}
	}
	if strings.Contains(joined, "$(") {
		t.Errorf("shard command %q has an undefined $(VAR)", joined)
	}
	parses(t, args)

	m := merge.Spec.Template.Spec.Containers[0]
	var margs []string
	for _, a := range m.Args {
		margs = append(margs, expand(a, env))
	}
	if margs[0] != "merge" || !strings.Contains(strings.Join(margs, " "), "/results/"+cm.Data["RUN_ID"]) {
		t.Errorf("merge command %q does not merge the run's results", margs)
	}
	parses(t, margs)
}

// parses checks that candor's command accepts args: every option known,
// every value well formed (it stops before running anything).
func parses(t *testing.T, args []string) {
	t.Helper()
	var out bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Args: append([]string{"candor"}, args...)}
	root := cli.NewRoot(env)
	cmd, rest, err := root.Find(args)
	if err != nil {
		t.Fatalf("candor %q: %v", args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("candor %s: %v", strings.Join(args, " "), err)
	}
}

func checkVolume(t *testing.T, j batchv1.Job, claim string) {
	t.Helper()
	ps := j.Spec.Template.Spec
	var vol string
	for _, v := range ps.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
			vol = v.Name
		}
	}
	if vol == "" {
		t.Errorf("%s does not mount the claim %s", j.Name, claim)
		return
	}
	for _, m := range ps.Containers[0].VolumeMounts {
		if m.Name == vol && m.MountPath == "/results" {
			return
		}
	}
	t.Errorf("%s does not mount %s at /results", j.Name, vol)
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
