%% Single process: non-tail recursion, tail recursion, lists, a BIF, a fun.
-module(fpt_single).
-export([run/0]).

run() ->
    L = [X * 3 rem 17 || X <- lists:seq(1, 60)],
    S = lists:sort(L),
    F = fib(9),
    T = sum(S, 0),
    M = lists:map(fun(X) -> X + 1 end, lists:sublist(S, 10)),
    {F, T, length(M), erlang:phash2(M)}.

fib(0) -> 0;
fib(1) -> 1;
fib(N) -> fib(N - 1) + fib(N - 2).

sum([], A) -> A;
sum([H | T], A) -> sum(T, A + H).
