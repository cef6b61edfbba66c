/*  cgcollect.pl - the SWI-Prolog binding of libcgcollect.

    cgrun(1) runs `swipl -s cgcollect.pl ARGS...`, so this file is loaded
    before the program.  It turns SWI-Prolog's own profiler on (its virtual
    machine counts the ports call, exit, redo, fail and exception per
    calling context) and, at halt, gives that calling-context tree to the
    collector through the foreign library cgswipl.so (see cgswipl.c for
    why the tree is taken from SWI's profiler).  So the counts are exactly
    SWI's profile/2 counts, and the file is the collector's cgtree.

    Predicates are named Name/Arity in module user and Module:Name/Arity
    elsewhere, with the file and line of their first clause.
*/
:- module(cgcollect, []).

% The foreign library sits next to this file (not on SWI's foreign path).
:- prolog_load_context(directory, Dir),
   atom_concat(Dir, '/cgswipl.so', Lib),
   load_foreign_library(Lib).

:- initialization(cgcollect_start).

cgcollect_start :-
    profiler(_, true),
    at_halt(cgcollect_stop).

cgcollect_stop :-
    profiler(_, false),
    empty_assoc(Funcs0),
    catch(replay_children(-, Funcs0, _), E,
          print_message(warning, E)).

% The tree below a SWI profile node (- for the roots), in the order SWI
% keeps it.
replay_children(Parent, Funcs0, Funcs) :-
    findall(N, '$prof_sibling_of'(N, Parent), Nodes),
    foldl(replay_node, Nodes, Funcs0, Funcs).

replay_node(Node, Funcs0, Funcs) :-
    '$prof_node'(Node, Pred, Calls, Redos, _Exits, Recur, _Ticks, _Sibling),
    func(Pred, Func, Funcs0, Funcs1),
    cg_enter(Func, Calls, Redos, Recur),
    replay_children(Node, Funcs1, Funcs),
    cg_leave.

func(Pred, Func, Funcs, Funcs) :-
    get_assoc(Pred, Funcs, Func),
    !.
func(Pred, Func, Funcs0, Funcs) :-
    label(Pred, Label),
    source(Pred, File, Line),
    cg_func(Label, File, Line, Func),
    put_assoc(Pred, Funcs0, Func, Funcs).

label(user:Name/Arity, Label) :-
    !,
    format(atom(Label), '~w/~w', [Name, Arity]).
label(Module:Name/Arity, Label) :-
    !,
    format(atom(Label), '~w:~w/~w', [Module, Name, Arity]).
label(Other, Label) :-
    format(atom(Label), '~w', [Other]).

source(Module:Name/Arity, File, Line) :-
    atom(Name), integer(Arity),
    functor(Head, Name, Arity),
    predicate_property(Module:Head, file(File)),
    predicate_property(Module:Head, line_count(Line)),
    !.
source(_, [], 0).
