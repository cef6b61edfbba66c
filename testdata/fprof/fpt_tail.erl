%% Long tail-call chains: lists:sort's merge functions tail-call each other
%% in data-dependent order (fprof's collapse rule meets aperiodic chains),
%% and hand-made chains with periods 1, 3, 17 and 40 (collapses at small
%% and large distances) plus an aperiodic walk.
-module(fpt_tail).
-export([run/0]).

run() ->
    L = lists:sort(rand_list(200, 7)),
    P = [walk(pattern(N), 0) || N <- [1, 3, 17, 40]],
    W = walk(rand_list(120, 11), 0),
    {length(L), P, W}.

rand_list(0, _) -> [];
rand_list(N, S) -> S2 = (S * 1103515245 + 12345) rem 2147483648, [S2 | rand_list(N - 1, S2)].

%% 3 repetitions of a period-N pattern over 4 functions
pattern(N) -> lists:append(lists:duplicate(3, [I * 7 rem 4 || I <- lists:seq(1, N)])).

walk([], A) -> A;
walk([X | T], A) -> f(X rem 4, T, A).

f(0, T, A) -> g0(T, A + 1);
f(1, T, A) -> g1(T, A + 2);
f(2, T, A) -> g2(T, A + 3);
f(_, T, A) -> g3(T, A + 4).

g0(T, A) -> walk(T, A).
g1(T, A) -> walk(T, A).
g2(T, A) -> walk(T, A).
g3(T, A) -> walk(T, A).
