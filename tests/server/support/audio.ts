/** Real recordings for tests: espeak-ng speech encoded by ffmpeg the way browsers record, and checks on the output. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const FORMATS = {
  // Chrome / Firefox MediaRecorder
  'WebM/Opus': { file: 'speech.webm', contentType: 'audio/webm;codecs=opus', args: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'webm'] },
  // Firefox's other choice
  'Ogg/Opus': { file: 'speech.ogg', contentType: 'audio/ogg;codecs=opus', args: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'] },
  // Safari MediaRecorder: fragmented MP4 with AAC
  'MP4/AAC': {
    file: 'speech.mp4',
    contentType: 'audio/mp4',
    args: ['-c:a', 'aac', '-b:a', '64k', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', '-f', 'mp4'],
  },
} as const;
export type FormatName = keyof typeof FORMATS;

/** Speaks a sentence into dir/speech.wav and encodes it in every browser format. */
export async function makeSpeech(dir: string): Promise<{ wav: string; seconds: number }> {
  const wav = path.join(dir, 'speech.wav');
  await run('espeak-ng', ['-w', wav, 'Go go go! You are doing great at mile thirteen. Keep it up, we are so proud of you.']);
  for (const format of Object.values(FORMATS)) {
    await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', wav, '-ac', '1', '-ar', '48000', ...format.args, path.join(dir, format.file)]);
  }
  return { wav, seconds: await decodedSeconds(wav) };
}

/** The first audio stream's codec and channel count. */
export async function probeStream(file: string): Promise<{ codec: string; channels: number; container: string }> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file]);
  const info = JSON.parse(stdout) as { streams: { codec_type: string; codec_name: string; channels: number }[]; format: { format_name: string } };
  const audio = info.streams.find((s) => s.codec_type === 'audio')!;
  return { codec: audio.codec_name, channels: audio.channels, container: info.format.format_name };
}

async function decodePcm(file: string): Promise<Int16Array> {
  const { stdout } = await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', file, '-ac', '1', '-ar', '48000', '-f', 's16le', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  const buf = stdout as Buffer;
  return new Int16Array(buf.buffer, buf.byteOffset, Math.floor(buf.length / 2));
}

/** Duration measured by decoding, not from the header. */
export async function decodedSeconds(file: string): Promise<number> {
  return (await decodePcm(file)).length / 48000;
}

/** Share of 20 ms frames louder than -35 dBFS: speech ~0.75, silence 0. */
export async function loudFrameShare(file: string): Promise<number> {
  const pcm = await decodePcm(file);
  const frame = 960;
  let frames = 0;
  let loud = 0;
  for (let i = 0; i + frame <= pcm.length; i += frame) {
    let sum = 0;
    for (let j = i; j < i + frame; j++) sum += (pcm[j]! / 32768) ** 2;
    frames++;
    if (10 * Math.log10(sum / frame + 1e-12) > -35) loud++;
  }
  return frames ? loud / frames : 0;
}

/** Integrated loudness (LUFS) by ffmpeg's EBU R128 meter. */
export async function integratedLufs(file: string): Promise<number> {
  const { stderr } = await run('ffmpeg', ['-nostdin', '-hide_banner', '-i', file, '-af', 'ebur128', '-f', 'null', '-']);
  const match = /I:\s+(-?[\d.]+) LUFS(?![\s\S]*I:\s+-?[\d.]+ LUFS)/.exec(stderr);
  return Number(match?.[1]);
}
