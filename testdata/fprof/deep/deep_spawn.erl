%% deep_spawn: spawns a process whose argument is a deeply nested term, for
%% tests/fprof-deep.t.  The term is built before fprof starts tracing
%% (run/2 only spawns), so the trace stays small (about 110 KB for a list
%% nested 9,000 deep) while its spawn record holds the whole term.
-module(deep_spawn).
-export([run/2, child/1, lists/1, tagged/1, mixed/1]).

run(Term, _) ->
    {Pid, Ref} = spawn_monitor(?MODULE, child, [Term]),
    receive {'DOWN', Ref, process, Pid, _} -> ok end.

child(_) -> ok.

%% [[[...[]...]]]: io_lib_pretty keeps it on one line.
lists(0) -> [];
lists(N) -> [lists(N - 1)].

%% {t,[{t,[...]}]}: a new, further indented line per level.
tagged(0) -> leaf;
tagged(N) -> {t, [tagged(N - 1)]}.

%% Maps, binaries, floats, strings and improper lists around deep parts.
mixed(N) ->
    {tagged(N), #{k => lists(N), [1, 2] => {<<1, 2, 3>>, "str", 1.5, [a | b]}},
     [{x, lists(N div 10)} || _ <- lists:seq(1, 5)]}.
