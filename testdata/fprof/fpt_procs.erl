%% Many processes exchanging messages: a ring, workers that wait, replies.
-module(fpt_procs).
-export([run/0, worker/2, ring_node/1]).

run() ->
    Self = self(),
    Ws = [spawn_link(?MODULE, worker, [Self, N]) || N <- lists:seq(1, 6)],
    [W ! {go, N} || {W, N} <- lists:zip(Ws, lists:seq(1, 6))],
    Rs = [receive {done, W, R} -> R end || W <- Ws],
    First = spawn(?MODULE, ring_node, [Self]),
    Last = lists:foldl(fun(_, Next) -> spawn(?MODULE, ring_node, [Next]) end, First, lists:seq(1, 4)),
    Last ! {token, 0},
    receive {token, K} -> {lists:sum(Rs), K} end.

worker(Parent, N) ->
    receive {go, M} -> ok end,
    X = work(M * 25, 0),
    receive after N -> ok end,
    Parent ! {done, self(), X + N}.

work(0, A) -> A;
work(N, A) -> work(N - 1, A + (N band 3)).

ring_node(Next) ->
    receive {token, K} -> Next ! {token, K + 1} end.
