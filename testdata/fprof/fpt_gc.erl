%% Heavy garbage collection: big short-lived lists, binaries, explicit GC.
-module(fpt_gc).
-export([run/0]).

run() ->
    R = [churn(I) || I <- lists:seq(1, 12)],
    erlang:garbage_collect(),
    B = << <<I:16>> || I <- lists:seq(1, 300) >>,
    {lists:sum(R), byte_size(B)}.

churn(I) ->
    %% BIFs build big terms in one traced call each, so the trace stays small
    L = binary_to_list(binary:copy(<<7>>, 40000 + I * 1000)),
    T = list_to_tuple(L),
    erlang:phash2(tuple_to_list(T)) + length(L).
