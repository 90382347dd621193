# NvmProc - process helpers for the crash tests: the postmaster's pid, its
# children, and their state, read from /proc.
package NvmProc;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(proc_stat postmaster_pid children_of);

# proc_stat PID - (state, parent pid) of a process (comm may hold spaces)
sub proc_stat
{
	my ($pid) = @_;
	open(my $fh, '<', "/proc/$pid/stat") or return;
	my $line = <$fh>;
	close $fh;
	return unless defined $line && $line =~ /\)\s+(\S)\s+(\d+)/;
	return ($1, $2);
}

# postmaster_pid NODE - the pid in the node's postmaster.pid
sub postmaster_pid
{
	my ($node) = @_;
	open(my $fh, '<', $node->data_dir . '/postmaster.pid') or die "postmaster.pid: $!";
	my $pid = <$fh>;
	close $fh;
	chomp $pid;
	return $pid;
}

# children_of PID - the pids whose parent is PID
sub children_of
{
	my ($parent) = @_;
	return grep {
		my ($state, $ppid) = proc_stat($_);
		defined $ppid && $ppid == $parent
	} map { m{^/proc/(\d+)$} ? $1 : () } glob('/proc/[0-9]*');
}

1;
