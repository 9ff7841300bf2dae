// Prints the ffmpeg geq filter that paints the hero loop: a road at dawn running toward the sun,
// its lane dashes and verge stripes rushing past. Every moving term advances a whole number of
// cycles in LOOP_S seconds, so the last frame leads straight back into the first.
const LOOP_S = 6;
const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const C = {
  skyTop: hex('#3d4d8f'),
  skyLow: hex('#ffa270'),
  sun: hex('#ffe2a8'),
  hill: hex('#5b4470'),
  grassA: hex('#35504a'),
  grassB: hex('#3d5a52'),
  road: hex('#46444f'),
  edge: hex('#d9d4cf'),
  dash: hex('#f6c453'),
  post: hex('#ece6dc'),
  sign: hex('#f28a3b'),
};

function channel(i) {
  const c = (name) => C[name][i];
  // st(0..9) registers: 0 horizon, 1 depth 0..1, 2 half road width, 3 distance from centre, 4 z.
  return [
    `st(0,0.46*H);`,
    `st(3,abs(X-W/2));`,
    // Mile-marker posts on the right verge: the post nearest this column, its depth and height.
    `st(1,((X-W/2)/(1.1*W)-0.012)/0.62);`,
    `st(4,1/(max(ld(1),0.001)+0.03));`,
    `st(9,(round(ld(4)*0.3+T/3)-T/3)/0.3);`,
    `st(9,1/ld(9)-0.03);`,
    `st(7,ld(0)+ld(9)*(H-ld(0)));`,
    `if(gt(ld(9),0)*gt(X,W/2)*lt(abs(X-W/2-1.1*W*(0.012+0.62*ld(9))),max(0.7,0.009*W*ld(9)))*lt(Y,ld(7))*gt(Y,ld(7)-0.34*H*ld(9)),`,
    `  if(lt(Y,ld(7)-0.26*H*ld(9)),${c('sign')},${c('post')})*(0.55+0.45*min(1,ld(9)*2)),`,
    `if(lt(Y,ld(0)),`,
    // Sky: gradient to the horizon, a sun sitting on it, a soft glow around it, far hills.
    `  st(5,pow(Y/ld(0),1.1));`,
    `  st(6,hypot(X-W/2,(Y-ld(0))*1.0));`,
    `  st(7,ld(0)-H*(0.05+0.025*sin(X/W*9.4+1)+0.015*sin(X/W*23)));`,
    `  if(gt(Y,ld(7)),${c('hill')}+(${c('skyLow')}-${c('hill')})*0.25*exp(-ld(6)/(0.09*W)),`,
    `    if(lt(ld(6),0.075*W),${c('sun')},`,
    `      min(255,${c('skyTop')}+(${c('skyLow')}-${c('skyTop')})*ld(5)+90*exp(-ld(6)/(0.16*W))))),`,
    // Ground: perspective road with dashes and edge lines; striped verges for a sense of speed.
    `  st(1,(Y-ld(0))/(H-ld(0)));`,
    `  st(2,W*(0.012+0.62*ld(1)));`,
    `  st(4,1/(ld(1)+0.03));`,
    `  st(8,1-0.45*(1-ld(1)));`,
    `  if(lt(ld(3),ld(2)),`,
    `    if(lt(abs(ld(3)-0.9*ld(2)),0.018*ld(2)+0.4),${c('edge')}*ld(8),`,
    `      if(lt(ld(3),0.022*ld(2)+0.4)*lt(mod(ld(4)*0.9+T,1),0.45),${c('dash')}*ld(8),${c('road')}*ld(8))),`,
    `    if(lt(mod(ld(4)*0.45+T*${3 / LOOP_S},1),0.5),${c('grassA')}*ld(8),${c('grassB')}*ld(8)))))`,
  ]
    .join('')
    .replace(/\s+/g, '');
}

process.stdout.write(`geq=r='${channel(0)}':g='${channel(1)}':b='${channel(2)}'`);
