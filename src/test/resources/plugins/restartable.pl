#!/usr/bin/env perl
# Test plugin in Perl (JSON::PP, core): accepts everything; "#pid" is rejected with the process id
# ("blocked: pid 1234"), "#exit" is accepted and then the plugin exits.
use strict;
use warnings;
use JSON::PP;

$| = 1;
my $json = JSON::PP->new->utf8->canonical;

while (my $line = <STDIN>) {
    my $req = $json->decode($line);
    my $id = $req->{event}{id};
    my $content = $req->{event}{content};
    if ($content =~ /#pid/) {
        print $json->encode({ id => $id, action => 'reject', msg => "blocked: pid $$" }), "\n";
    } else {
        print $json->encode({ id => $id, action => 'accept' }), "\n";
    }
    exit 0 if $content =~ /#exit/;
}
