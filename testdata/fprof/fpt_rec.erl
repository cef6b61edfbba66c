%% Deep self recursion and deep mutual recursion (fprof is quadratic on the
%% latter), plus a tail-call cycle through three functions.
-module(fpt_rec).
-export([run/0]).

run() ->
    A = length(mk(400)),
    B = length(a(400)),
    C = t1(300),
    {A, B, C}.

mk(0) -> [];
mk(N) -> [N | mk(N - 1)].

a(0) -> [];
a(N) -> [N | b(N - 1)].
b(0) -> [];
b(N) -> [N | a(N - 1)].

t1(0) -> done;
t1(N) -> t2(N - 1).
t2(0) -> done;
t2(N) -> t3(N - 1).
t3(0) -> done;
t3(N) -> t1(N - 1).
