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
	// Log, if set, receives the server's log (none otherwise): a test
	// shows it when the server does not come up.
	Log server.Logger
}

// Cluster is a server's part in a cluster: its name, the port the node
// listens on for routes (0 picks a free port), and the route URLs of the
// nodes it knows (nats://127.0.0.1:PORT; its own may be among them): a
// node routed to one node of a cluster learns the others from it.
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
		cport := c.Port
		if cport == 0 {
			cport = server.RANDOM_PORT
		}
		so.Cluster = server.ClusterOpts{Name: c.Name, Host: o.Host, Port: cport}
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
	if o.Log != nil {
		so.NoLog = false
		ns.SetLogger(o.Log, false, false)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("embedded nats on %s: not ready after 10s", net.JoinHostPort(o.Host, strconv.Itoa(o.Port)))
	}
	// Remember the ports actually bound so that Restart comes back on
	// them.
	o.Port = ns.Addr().(*net.TCPAddr).Port
	if c := o.Cluster; c != nil {
		o.Cluster = &Cluster{Name: c.Name, Port: ns.ClusterAddr().Port, Routes: c.Routes}
	}
	return &Server{Server: ns, opts: o}, nil
}

// Options are the server's options with the ports it got: a restart
// with them comes back where it was.
func (s *Server) Options() Options { return s.opts }

// URL is the client URL of the server.
func (s *Server) URL() string { return s.ClientURL() }

// Stop shuts the server down and waits until it is gone.
func (s *Server) Stop() {
	s.Shutdown()
	s.WaitForShutdown()
}

// Restart stops the server and starts a new one on the same ports and
// directory: clients reconnect and find their stream.
func (s *Server) Restart() (*Server, error) {
	s.Stop()
	return Start(s.opts)
}
