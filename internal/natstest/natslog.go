package natstest

import "fmt"

// NATSLog is a NATS server's log kept for the test (server.Logger): a
// node that does not come up is reported with what it said.
type NATSLog struct{ Buffer }

func (l *NATSLog) line(level, format string, v ...any) {
	fmt.Fprintf(&l.Buffer, "["+level+"] "+format+"\n", v...)
}

// Noticef logs a notice.
func (l *NATSLog) Noticef(format string, v ...any) { l.line("INF", format, v...) }

// Warnf logs a warning.
func (l *NATSLog) Warnf(format string, v ...any) { l.line("WRN", format, v...) }

// Fatalf logs a fatal error (the server stops itself).
func (l *NATSLog) Fatalf(format string, v ...any) { l.line("FTL", format, v...) }

// Errorf logs an error.
func (l *NATSLog) Errorf(format string, v ...any) { l.line("ERR", format, v...) }

// Debugf logs a debug line.
func (l *NATSLog) Debugf(format string, v ...any) { l.line("DBG", format, v...) }

// Tracef logs a trace line.
func (l *NATSLog) Tracef(format string, v ...any) { l.line("TRC", format, v...) }
