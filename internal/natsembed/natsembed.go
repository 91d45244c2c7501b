// Package natsembed runs a NATS server with JetStream inside the process: the
// tests' real server, cmd/api's single-machine mode and `make run`.
package natsembed

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options configure an embedded server. Dir is required: JetStream keeps its
// file storage there, so a restart with the same Dir finds the same stream.
type Options struct {
	Dir  string
	Host string // default 127.0.0.1: never listen beyond loopback by accident
	Port int    // 0 picks a free port
	// Name is the server's name (default football-embedded); the nodes
	// of a cluster need distinct ones.
	Name string
	// Cluster, if set, makes the server a node of a JetStream cluster.
	Cluster *Cluster
}

// Cluster is a server's part in a cluster: its name, the port the node
// listens on for routes, and the route URLs of every node
// (nats://127.0.0.1:PORT), its own included.
type Cluster struct {
	Name   string
	Port   int
	Routes []string
}

// Server is a running embedded server.
type Server struct {
	*server.Server
	opts Options
}

// Start starts a server and waits until it accepts connections.
func Start(o Options) (*Server, error) {
	if o.Dir == "" {
		return nil, fmt.Errorf("embedded nats: a storage directory is required")
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	port := o.Port
	if port == 0 {
		port = server.RANDOM_PORT
	}
	name := o.Name
	if name == "" {
		name = "football-embedded"
	}
	so := &server.Options{
		ServerName: name,
		Host:       o.Host,
		Port:       port,
		JetStream:  true,
		StoreDir:   o.Dir,
		NoSigs:     true,
		NoLog:      true,
		// Room for bulk imports of large messages batches.
		MaxPayload: 8 << 20,
	}
	if c := o.Cluster; c != nil {
		so.Cluster = server.ClusterOpts{Name: c.Name, Host: o.Host, Port: c.Port}
		for _, r := range c.Routes {
			u, err := url.Parse(r)
			if err != nil {
				return nil, fmt.Errorf("embedded nats: route %q: %w", r, err)
			}
			so.Routes = append(so.Routes, u)
		}
	}
	ns, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("embedded nats on %s: not ready after 10s", net.JoinHostPort(o.Host, strconv.Itoa(o.Port)))
	}
	// Remember the port actually bound so that Restart comes back on it.
	o.Port = ns.Addr().(*net.TCPAddr).Port
	return &Server{Server: ns, opts: o}, nil
}

// URL is the client URL of the server.
func (s *Server) URL() string { return s.ClientURL() }

// Stop shuts the server down and waits until it is gone.
func (s *Server) Stop() {
	s.Shutdown()
	s.WaitForShutdown()
}

// Restart stops the server and starts a new one on the same port and
// directory: clients reconnect and find their stream.
func (s *Server) Restart() (*Server, error) {
	s.Stop()
	return Start(s.opts)
}
