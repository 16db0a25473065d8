// Command leader-interop is a client-go leader-election candidate for rxkube's interoperability e2e spec
// (spec/e2e/leader-interop.spec.ts): a LeaseLock elector with ReleaseOnCancel, logging what it does as JSON lines
// on stdout, in the same shape as rxkube's candidate (spec/e2e/support/leader-candidate.ts).
//
// It is built on demand by the spec and never shipped.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

var out sync.Mutex

// emit writes one JSON line: {"event": ..., "at": <ms since epoch>, ...fields}.
func emit(event string, fields map[string]any) {
	line := map[string]any{"event": event, "at": time.Now().UnixMilli()}
	for k, v := range fields {
		line[k] = v
	}
	b, err := json.Marshal(line)
	if err != nil {
		panic(err)
	}
	out.Lock()
	defer out.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path to a kubeconfig file")
	namespace := flag.String("namespace", "default", "namespace of the Lease")
	name := flag.String("name", "", "name of the Lease")
	identity := flag.String("identity", "", "holder identity of this candidate")
	leaseDuration := flag.Duration("lease-duration", 15*time.Second, "LeaseDuration")
	renewDeadline := flag.Duration("renew-deadline", 10*time.Second, "RenewDeadline")
	retryPeriod := flag.Duration("retry-period", 2*time.Second, "RetryPeriod")
	stopOnEOF := flag.Bool("stop-on-stdin-eof", false, "stop (and release) when stdin ends, i.e. when the spec that started us is gone")
	flag.Parse()
	if *kubeconfig == "" || *name == "" || *identity == "" {
		fmt.Fprintln(os.Stderr, "usage: leader-interop -kubeconfig FILE -name LEASE -identity ID [-namespace NS] [-lease-duration D] [-renew-deadline D] [-retry-period D]")
		os.Exit(2)
	}

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubeconfig: %v\n", err)
		os.Exit(2)
	}
	client := kubernetes.NewForConfigOrDie(config)
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: *namespace, Name: *name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: *identity},
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if *stopOnEOF {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}
	emit("started", map[string]any{"identity": *identity, "pid": os.Getpid(), "implementation": "client-go"})
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   *leaseDuration,
		RenewDeadline:   *renewDeadline,
		RetryPeriod:     *retryPeriod,
		ReleaseOnCancel: true,
		Name:            *name,
		Callbacks: leaderelection.LeaderCallbacks{
			// The leading context ends as soon as leadership does (lost, or cancelled before the release).
			OnStartedLeading: func(leading context.Context) {
				emit("leading", nil)
				<-leading.Done()
				emit("following", nil)
			},
			OnStoppedLeading: func() {},
			OnNewLeader:      func(holder string) { emit("leader", map[string]any{"holder": holder}) },
		},
	})
	if ctx.Err() != nil {
		emit("exited", map[string]any{"code": 0})
		os.Exit(0)
	}
	emit("lost", nil)
	os.Exit(1)
}
